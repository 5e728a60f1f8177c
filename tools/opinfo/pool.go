package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// A worker is a child process (this binary with -worker) that runs cases
// one at a time: a case is written to its stdin as a JSON line, its result
// comes back on stdout. A case that kills the process (a fatal error, a
// stack overflow, running out of memory) or outlives the timeout is a
// Crash, and the next case gets a fresh process.
type worker struct {
	args   []string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *headBuffer
	lines  chan lineOrErr
}

type lineOrErr struct {
	line []byte
	err  error
}

func (w *worker) start() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	w.cmd = exec.Command(exe, w.args...)
	w.stderr = &headBuffer{max: 4096}
	w.cmd.Stderr = w.stderr
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if err := w.cmd.Start(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	w.out = bufio.NewReaderSize(stdout, 1<<16)
	w.lines = make(chan lineOrErr, 1)
	go func(r *bufio.Reader, ch chan<- lineOrErr) {
		for {
			b, err := r.ReadBytes('\n')
			ch <- lineOrErr{b, err}
			if err != nil {
				close(ch)
				return
			}
		}
	}(w.out, w.lines)
	return nil
}

func (w *worker) stop() {
	if w.cmd == nil {
		return
	}
	w.in.Close()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.cmd.Wait()
	w.cmd = nil
}

// run sends one case and waits for its result.
func (w *worker) run(ctx context.Context, c *Case, timeout time.Duration) Result {
	if w.cmd == nil {
		if err := w.start(); err != nil {
			return Result{Name: c.Name, Outcome: Error, Detail: err.Error()}
		}
	}
	b, _ := json.Marshal(c)
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		return w.crashed(c, "worker gone before the case: "+err.Error())
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case l, ok := <-w.lines:
		if !ok || l.err != nil {
			return w.crashed(c, "worker exited")
		}
		var r Result
		if err := json.Unmarshal(l.line, &r); err != nil || r.Name != c.Name {
			return w.crashed(c, fmt.Sprintf("worker answered %q", strings.TrimSpace(string(l.line))))
		}
		return r
	case <-t.C:
		return w.crashed(c, fmt.Sprintf("no result after %s (killed)", timeout))
	case <-ctx.Done():
		w.stop()
		return Result{Name: c.Name, Outcome: Error, Detail: ctx.Err().Error()}
	}
}

func (w *worker) crashed(c *Case, why string) Result {
	w.stop()
	head := strings.TrimSpace(w.stderr.String())
	return Result{Name: c.Name, Outcome: Crash, Detail: oneLine(why + ": " + firstLines(head, 3))}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// headBuffer keeps the first max bytes written (a fatal error's message
// and the top of its stack).
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *headBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - t.b.Len(); room > 0 {
		if len(p) > room {
			t.b.Write(p[:room])
		} else {
			t.b.Write(p)
		}
	}
	return len(p), nil
}

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// runAll runs cases on jobs workers and calls done with each result, in
// completion order, from one goroutine at a time.
func runAll(ctx context.Context, cases []*Case, jobs int, workerArgs []string, timeout time.Duration, done func(Result)) {
	ch := make(chan *Case)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{args: workerArgs}
			defer w.stop()
			for c := range ch {
				r := w.run(ctx, c, timeout)
				mu.Lock()
				done(r)
				mu.Unlock()
			}
		}()
	}
	for _, c := range cases {
		if ctx.Err() != nil {
			break
		}
		ch <- c
	}
	close(ch)
	wg.Wait()
}

// serveWorker is the child's side: cases in on stdin, results out on
// stdout, until stdin closes.
func serveWorker(ctx context.Context, r *Runner, timeout time.Duration) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var c Case
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			return fmt.Errorf("worker: bad case line: %w", err)
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		res := r.Run(cctx, &c)
		cancel()
		b, _ := json.Marshal(res)
		out.Write(append(b, '\n'))
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return in.Err()
}
