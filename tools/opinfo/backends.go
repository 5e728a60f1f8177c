package main

// The backends register themselves with the backend registry on import
// (as in cmd/torchtpu): -device picks one.
import (
	_ "github.com/torchtpu/torchtpu/backend/native"
	_ "github.com/torchtpu/torchtpu/backend/pjrt"
)
