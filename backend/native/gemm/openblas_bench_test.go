package gemm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSgemmOpenBLAS sweeps square float32 products from 256 to 4096
// at GOMAXPROCS threads and reports, per size, our GFLOP/s, OpenBLAS's
// (torch.mm in ../shared/tools/torch-oracle, Debian's torch, its BLAS
// pinned to the same threads; measured once per size, in the same
// process run), their ratio, and our share of the threads' measured FMA
// peak (PeakFMA times the thread count):
//
//	go test ./backend/native/gemm -run '^$' -bench SgemmOpenBLAS -benchtime 5x
//
// It fails where the oracle is missing (CI has it beside the checkout).
func BenchmarkSgemmOpenBLAS(b *testing.B) {
	sizes := []int{256, 512, 1024, 2048, 4096}
	threads := runtime.GOMAXPROCS(0)
	peak, ok := PeakFMA(300 * time.Millisecond)
	blas, err := openBLASRates(threads, sizes)
	if err != nil {
		b.Fatalf("OpenBLAS through torch-oracle: %v", err)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(uint64(n), 3))
			mat := func() []float32 {
				s := make([]float32, n*n)
				for i := range s {
					s[i] = float32(r.NormFloat64())
				}
				return s
			}
			x, y, c := mat(), mat(), make([]float32, n*n)
			mm := func() { Sgemm(n, n, n, RowMajor(x, n), RowMajor(y, n), c, n, false, threads) }
			mm()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				mm()
			}
			g := 2 * float64(n) * float64(n) * float64(n) * float64(b.N) / b.Elapsed().Seconds() / 1e9
			b.ReportMetric(g, "GFLOP/s")
			if o := blas[n]; o > 0 {
				b.ReportMetric(o, "openblasGFLOP/s")
				b.ReportMetric(g/o, "x_openblas")
			}
			if ok {
				b.ReportMetric(g/(peak*float64(threads)), "of_peak")
			}
		})
	}
	if ok {
		b.Logf("one core's measured FMA peak %.1f GFLOP/s; %d threads: %.1f", peak, threads, peak*float64(threads))
	}
}

// openBLASRates runs tools/bench/openblas_mm.py through torch-oracle and
// returns GFLOP/s per size.
func openBLASRates(threads int, sizes []int) (map[int]float64, error) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		return nil, err
	}
	oracle := filepath.Join(root, "..", "shared", "tools", "torch-oracle")
	if dir := os.Getenv("TORCHTPU_SHARED"); dir != "" {
		oracle = filepath.Join(dir, "tools", "torch-oracle")
	}
	if _, err := os.Stat(oracle); err != nil {
		return nil, fmt.Errorf("no torch-oracle: %w", err)
	}
	script, err := os.ReadFile(filepath.Join(root, "tools", "bench", "openblas_mm.py"))
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sgemm-openblas")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "openblas_mm.py"), script, 0o644); err != nil {
		return nil, err
	}
	args := []string{"run", "--", "env", "OPENBLAS_NUM_THREADS=" + strconv.Itoa(threads), "OMP_NUM_THREADS=" + strconv.Itoa(threads),
		"python3", "openblas_mm.py", strconv.Itoa(threads), "5"}
	for _, n := range sizes {
		args = append(args, strconv.Itoa(n))
	}
	cmd := exec.Command(oracle, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.Bytes())
	}
	rates := map[int]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct {
			N      int     `json:"n"`
			GFLOPS float64 `json:"gflops"`
			BLAS   string  `json:"blas"`
		}
		if line := sc.Bytes(); len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &r) == nil && r.N > 0 {
			if r.BLAS != "openblas" {
				return nil, fmt.Errorf("torch-oracle's torch uses %s, not OpenBLAS", r.BLAS)
			}
			rates[r.N] = r.GFLOPS
		}
	}
	if len(rates) != len(sizes) {
		return nil, fmt.Errorf("torch-oracle printed %d of %d sizes: %s", len(rates), len(sizes), out)
	}
	return rates, nil
}
