package aten

import (
	_ "embed"
	"strings"
)

// The schema tables: core_aten_ops.txt is the 193 Core ATen schemas (a copy
// of ../shared/reference/core_aten_ops.txt); schemas_extra.txt holds the
// schemas of the non-core ops that exported programs use (the default
// torch.export keeps ops like linear, conv2d, gelu, softmax.int), made by
// tools/oracle/gen_schemas.py from PyTorch itself. Both use the format
// "name[.overload]: schema", '#' starts a comment line.

//go:embed core_aten_ops.txt
var coreSchemasText string

//go:embed schemas_extra.txt
var extraSchemasText string

// The tables are package-level variables so that they are ready before any
// init() of the family files runs Register.
var (
	schemaTable = map[string]string{} // canonical name → schema text
	coreOps     = loadSchemas(coreSchemasText)
	_           = loadSchemas(extraSchemasText)
)

func loadSchemas(text string) []string {
	var names []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, schema, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		cn := CanonicalName("aten::" + strings.TrimSpace(name))
		if _, dup := schemaTable[cn]; !dup {
			schemaTable[cn] = strings.TrimSpace(schema)
		}
		names = append(names, cn)
	}
	return names
}

// schemaText returns the embedded schema for a canonical name, "" if none.
func schemaText(name string) string { return schemaTable[name] }

// SchemaFor returns the parsed embedded schema of an op name.
func SchemaFor(name string) (*Schema, bool) {
	t := schemaText(CanonicalName(name))
	if t == "" {
		return nil, false
	}
	s, err := ParseSchema(t)
	return s, err == nil
}

// CoreOps returns the canonical names of the 193 Core ATen ops.
func CoreOps() []string { return append([]string(nil), coreOps...) }
