package bitgen

import "testing"

// TestRngKnownAnswers checks the two block functions against the
// known-answer vectors published with Random123 (Salmon et al., SC11).
func TestRngKnownAnswers(t *testing.T) {
	philox := []struct{ in, key, want [4]uint32 }{
		{[4]uint32{0, 0, 0, 0}, [4]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [4]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [4]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	}
	for _, c := range philox {
		if got := philox4x32(c.in, c.key[0], c.key[1]); got != c.want {
			t.Errorf("philox4x32-10(%08x, key %08x) = %08x, want %08x", c.in, c.key[:2], got, c.want)
		}
	}
	threefry := []struct{ in, key, want [2]uint32 }{
		{[2]uint32{0, 0}, [2]uint32{0, 0}, [2]uint32{0x6b200159, 0x99ba4efe}},
		{[2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [2]uint32{0x1cb996fc, 0xbb002be7}},
		{[2]uint32{0x243f6a88, 0x85a308d3}, [2]uint32{0x13198a2e, 0x03707344}, [2]uint32{0xc4923a9c, 0x483df7a0}},
	}
	for _, c := range threefry {
		a, b := threeFry2x32(c.in[0], c.in[1], c.key[0], c.key[1])
		if got := [2]uint32{a, b}; got != c.want {
			t.Errorf("threefry2x32-20(%08x, key %08x) = %08x, want %08x", c.in, c.key, got, c.want)
		}
	}
}
