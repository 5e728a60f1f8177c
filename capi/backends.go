package capi

// The backends register themselves with the backend registry on import:
// the library serves every device the CLI does.
import (
	_ "github.com/torchtpu/torchtpu/backend/native"
	_ "github.com/torchtpu/torchtpu/backend/pjrt"
)
