package pjrttest

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
	"testing"
	"time"
)

// A real plugin can crash the process on some programs (XLA's CPU
// compiler segfaults on a few conformance files): RunIsolated runs each
// item of a suite in a worker process, so that a crash fails that item
// and a fresh worker goes on with the rest.
//
// The worker is the test binary itself, started with
// -test.run=^WORKER$ and IsolatedEnv=1; the test named WORKER calls
// ServeIsolated. Items are sent on the worker's stdin, one per line;
// results come back on stdout as lines starting with resultMark.

// IsolatedEnv is set in a worker's environment.
const IsolatedEnv = "TORCHTPU_ISOLATED_WORKER"

const resultMark = "\x1etorchtpu-result "

// IsWorker reports whether this process is a worker of RunIsolated.
func IsWorker() bool { return os.Getenv(IsolatedEnv) == "1" }

// Result is one item's outcome: Err is "" when it passed.
type Result struct {
	Item string `json:"item"`
	Err  string `json:"err"`
}

// ServeIsolated answers items on stdin with run(item) until stdin closes.
func ServeIsolated(run func(item string) string) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		item := sc.Text()
		b, _ := json.Marshal(Result{Item: item, Err: run(item)})
		fmt.Fprintf(out, "%s%s\n", resultMark, b)
		out.Flush()
	}
}

// RunIsolated runs items in workers processes of the current test binary
// (the test named worker), each item given at most perItem; it returns
// every item's error ("" for a pass). A worker that dies or times out
// fails its current item with the end of its stderr and is replaced.
func RunIsolated(t testing.TB, worker string, items []string, workers int, perItem time.Duration, env ...string) map[string]string {
	t.Helper()
	queue := make(chan string, len(items))
	for _, it := range items {
		queue <- it
	}
	close(queue)
	var mu sync.Mutex
	res := make(map[string]string, len(items))
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p *workerProc
			defer func() {
				if p != nil {
					p.stop()
				}
			}()
			for item := range queue {
				if p == nil {
					var err error
					if p, err = startWorker(worker, env); err != nil {
						mu.Lock()
						res[item] = "start worker: " + err.Error()
						mu.Unlock()
						continue
					}
				}
				r, err := p.run(item, perItem)
				if err != nil {
					r = "worker died: " + err.Error()
					p.stop()
					p = nil
				}
				mu.Lock()
				res[item] = r
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res
}

type workerProc struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	lines  chan string
	stderr *tailBuffer
}

func startWorker(worker string, env []string) (*workerProc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+worker+"$", "-test.count=1", "-test.timeout=0")
	cmd.Env = append(append(os.Environ(), IsolatedEnv+"=1"), env...)
	p := &workerProc{cmd: cmd, cancel: cancel, lines: make(chan string, 16), stderr: &tailBuffer{max: 1 << 16}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		cancel()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 1<<22)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), resultMark); ok {
				p.lines <- line
			}
		}
	}()
	return p, nil
}

// run sends one item and waits for its result.
func (p *workerProc) run(item string, limit time.Duration) (string, error) {
	p.stderr.reset()
	if _, err := fmt.Fprintln(p.stdin, item); err != nil {
		return "", fmt.Errorf("send: %w; %s", err, p.stderr.last())
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			_ = p.cmd.Wait()
			return "", fmt.Errorf("%v: %s", p.cmd.ProcessState, p.stderr.last())
		}
		var r Result
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Item != item {
			return "", fmt.Errorf("garbled answer %q for %s", line, item)
		}
		return r.Err, nil
	case <-timer.C:
		return "", fmt.Errorf("no answer within %v: %s", limit, p.stderr.last())
	}
}

func (p *workerProc) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cancel()
		<-done
	}
	p.cancel()
}

// tailBuffer keeps what a worker wrote on stderr for its current item
// (the first 64 KiB).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (t *tailBuffer) reset() {
	t.mu.Lock()
	t.b = t.b[:0]
	t.mu.Unlock()
}

// last returns the first line of a Go crash report if there is one
// (SIGSEGV: ...), else the last non-empty line.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(string(bytes.TrimSpace(t.b)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "SIGSEGV") || strings.HasPrefix(l, "SIGABRT") || strings.HasPrefix(l, "SIGBUS") ||
			strings.HasPrefix(l, "SIGILL") || strings.HasPrefix(l, "fatal error") || strings.HasPrefix(l, "panic:") {
			return strings.TrimSpace(l)
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return "(no output)"
}
