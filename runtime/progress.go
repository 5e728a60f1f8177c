package runtime

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// progressDelay is how long a compile runs before a progress line shows
// (a variable for tests).
var progressDelay = time.Second

// progress shows "compiling segment 2 (12 s)" on Options.Progress while a
// compile runs longer than progressDelay, and erases it when done. It
// returns the function that stops it. Without a Progress writer it does
// nothing (the CLI sets one only when stderr is a terminal).
func (st *rtState) progress(label string) (stop func()) {
	w := st.opts.Progress
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		timer := time.NewTimer(progressDelay)
		defer timer.Stop()
		shown := false
		spin := `|/-\`
		for i := 0; ; i++ {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-timer.C:
				shown = true
				fmt.Fprintf(w, "\r\033[K%c compiling %s (%d s)", spin[i%len(spin)], label, int(time.Since(start).Seconds()))
				timer.Reset(250 * time.Millisecond)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// IsTerminal reports whether f is a character device (a terminal), the
// test the CLI uses before asking for progress lines.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0 && !strings.EqualFold(os.Getenv("TERM"), "dumb")
}
