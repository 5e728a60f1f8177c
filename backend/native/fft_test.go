package native

import (
	"context"
	"testing"
)

// TestFFTRoundTrips checks FFT/IFFT, RFFT/IRFFT and RFFT against FFT on
// radix-2, small odd and Bluestein (prime > 64) lengths, in one and two
// dims.
func TestFFTRoundTrips(t *testing.T) {
	src := `
func.func @complex_roundtrip() {
  %i = stablehlo.iota dim = 1 : tensor<3x67xf64>
  %j = stablehlo.iota dim = 0 : tensor<3x67xf64>
  %c = stablehlo.constant dense<0.37> : tensor<3x67xf64>
  %p = stablehlo.multiply %i, %c : tensor<3x67xf64>
  %re = stablehlo.sine %p : tensor<3x67xf64>
  %im = stablehlo.add %j, %re : tensor<3x67xf64>
  %z = stablehlo.complex %re, %im : tensor<3x67xcomplex<f64>>
  %f = stablehlo.fft %z, type = FFT, length = [3, 67] : (tensor<3x67xcomplex<f64>>) -> tensor<3x67xcomplex<f64>>
  %b = stablehlo.fft %f, type = IFFT, length = [3, 67] : (tensor<3x67xcomplex<f64>>) -> tensor<3x67xcomplex<f64>>
  check.expect_almost_eq %b, %z, tolerance = 1.0e-12 : tensor<3x67xcomplex<f64>>
  func.return
}

func.func @real_roundtrip() {
  %i = stablehlo.iota dim = 0 : tensor<2x16xf32>
  %k = stablehlo.iota dim = 1 : tensor<2x16xf32>
  %c = stablehlo.constant dense<0.21> : tensor<2x16xf32>
  %p = stablehlo.multiply %k, %c : tensor<2x16xf32>
  %s = stablehlo.cosine %p : tensor<2x16xf32>
  %x = stablehlo.add %s, %i : tensor<2x16xf32>
  %f = stablehlo.fft %x, type = RFFT, length = [2, 16] : (tensor<2x16xf32>) -> tensor<2x9xcomplex<f32>>
  %b = stablehlo.fft %f, type = IRFFT, length = [2, 16] : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
  check.expect_almost_eq %b, %x, tolerance = 1.0e-5 : tensor<2x16xf32>
  func.return
}

func.func @rfft_is_half_of_fft() {
  %k = stablehlo.iota dim = 0 : tensor<15xf64>
  %c = stablehlo.constant dense<0.5> : tensor<15xf64>
  %p = stablehlo.multiply %k, %c : tensor<15xf64>
  %x = stablehlo.exponential %p : tensor<15xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<15xf64>
  %z = stablehlo.complex %x, %zero : tensor<15xcomplex<f64>>
  %full = stablehlo.fft %z, type = FFT, length = [15] : (tensor<15xcomplex<f64>>) -> tensor<15xcomplex<f64>>
  %half = stablehlo.slice %full [0:8] : (tensor<15xcomplex<f64>>) -> tensor<8xcomplex<f64>>
  %r = stablehlo.fft %x, type = RFFT, length = [15] : (tensor<15xf64>) -> tensor<8xcomplex<f64>>
  check.expect_almost_eq %r, %half, tolerance = 1.0e-9 : tensor<8xcomplex<f64>>
  func.return
}
`
	r := RunSource(context.Background(), "fft_test.mlir", []byte(src), RunOptions{})
	if !r.Passed() {
		t.Fatal(r.FirstError())
	}
	if len(r.Funcs) != 3 {
		t.Fatalf("ran %d functions, want 3", len(r.Funcs))
	}
}
