package main

// The backends register themselves with the backend registry on import.
import (
	_ "github.com/torchtpu/torchtpu/backend/native"
	_ "github.com/torchtpu/torchtpu/backend/pjrt"
)
