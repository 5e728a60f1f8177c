package capi

import "github.com/torchtpu/torchtpu/aten"

// RegisterStableHLO makes the op of this name and schema (a user's op,
// not one of torchtpu's) run through the modules lower returns: under
// torch.compile, in .pt2 programs loaded afterwards in this process, and
// on the eager device.
func RegisterStableHLO(name, schema string, lower aten.ModuleFunc) error {
	if name == "" || schema == "" {
		return Errorf("register_stablehlo: empty op name or schema")
	}
	return aten.RegisterUser(name, schema, lower)
}
