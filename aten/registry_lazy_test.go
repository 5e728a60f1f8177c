package aten

import "testing"

// Schemas are parsed when first used, not at registration: every
// registered entry's schema (and every embedded schema) must parse, which
// Register used to check at start-up.
func TestEverySchemaParses(t *testing.T) {
	entries := Entries()
	if len(entries) < 200 {
		t.Fatalf("only %d entries registered", len(entries))
	}
	for _, e := range entries {
		if _, err := e.parsed(); err != nil {
			t.Errorf("%v", err)
		}
	}
	for name, text := range schemaTable {
		if _, err := ParseSchema(text); err != nil {
			t.Errorf("embedded schema of %s: %v", name, err)
		}
	}
}

// An entry whose schema text is malformed reports an error when used;
// it does not panic.
func TestMalformedSchemaIsAnError(t *testing.T) {
	e := &Entry{Name: "aten::bogus.default", Kind: Lowered, schema: &lazySchema{text: "bogus(Tensor self"}}
	if e.ParsedSchema() != nil {
		t.Fatal("a malformed schema parsed")
	}
	if _, err := e.parsed(); err == nil {
		t.Fatal("no error for a malformed schema")
	}
	if _, err := Bind(e.ParsedSchema(), nil, nil); err == nil {
		t.Fatal("Bind accepted no schema")
	}
}
