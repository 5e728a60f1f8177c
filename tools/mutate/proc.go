package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// proc is a running worker process.
type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies *bufio.Scanner
	stderr  *tailBuffer
	done    chan struct{} // closed when the process has exited
}

func (h *harness) start(dir string) (*proc, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := h.workerCmd(dir)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	for k, v := range map[string]string{"TORCHTPU_MAX_TENSOR_BYTES": "268435456", "TORCHTPU_MAX_WEIGHT_BYTES": "1073741824", "GOMEMLIMIT": "3GiB"} {
		if os.Getenv(k) == "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.ExtraFiles = []*os.File{pw}
	p := &proc{cmd: cmd, stderr: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.Stdout = io.Discard
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pw.Close()
	p.replies = bufio.NewScanner(pr)
	p.replies.Buffer(make([]byte, 1<<20), 1<<20)
	go func() {
		cmd.Wait()
		pr.Close()
		close(p.done)
	}()
	return p, nil
}

// serve runs cases on one worker process, restarting it when it dies or
// hangs.
func (h *harness) serve(w int, ids <-chan int) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("mutate-w%d-", w))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	var p *proc
	for id := range ids {
		if p == nil {
			if p, err = h.start(dir); err != nil {
				fmt.Fprintln(os.Stderr, "mutate: start worker:", err)
				os.Exit(1)
			}
		}
		c := h.newCase(id, dir)
		for name, data := range c.files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "mutate:", err)
				os.Exit(1)
			}
		}
		rep, dead := h.ask(p, c)
		if dead {
			p = nil
		}
		h.record(c, rep)
	}
	if p != nil { // stdin closed, a worker ends; one that does not is killed
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// ask sends a case and waits for its reply; dead reports that the worker
// died or was killed (rep then says why).
func (h *harness) ask(p *proc, c *tcase) (rep reply, dead bool) {
	line, _ := json.Marshal(c.req)
	got := make(chan *reply, 1)
	go func() {
		if p.replies.Scan() {
			var r reply
			if json.Unmarshal(p.replies.Bytes(), &r) == nil {
				got <- &r
				return
			}
		}
		got <- nil
	}()
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		<-p.done
		return h.death(p, c), true
	}
	select {
	case r := <-got:
		if r == nil || r.ID != c.id {
			<-p.done
			return h.death(p, c), true
		}
		return *r, false
	case <-time.After(h.hang):
		p.cmd.Process.Kill()
		<-p.done
		<-got
		return reply{Outcome: "hang", Stage: "worker", Msg: fmt.Sprintf("no answer in %v", h.hang)}, true
	}
}

// death classifies a worker that died on a case from its stderr.
func (h *harness) death(p *proc, c *tcase) reply {
	msg := p.stderr.String()
	outcome := "died"
	switch {
	case strings.Contains(msg, "panic: "):
		outcome = "panic"
	case strings.Contains(msg, "fatal error: "):
		outcome = "fatal"
	}
	if i := strings.Index(msg, "panic: "); i >= 0 {
		msg = msg[i:]
	} else if i := strings.Index(msg, "fatal error: "); i >= 0 {
		msg = msg[i:]
	}
	if len(msg) > 3000 {
		msg = msg[:3000]
	}
	return reply{Outcome: outcome, Stage: "worker", Msg: fmt.Sprintf("%s (exit: %v)", msg, p.cmd.ProcessState)}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
