//go:build !amd64 || purego

package native

// No direct convolution tile here (convDirectOK is false): never called.
const convDirectOK = false

func convTile8x32(kc int, a *float32, offs *int, b *float32, c *float32, ldc int, rows int) {
	panic("no vector loops")
}

var convTile = convTile8x32

var convTileForms = []convTileFunc{convTile8x32}
