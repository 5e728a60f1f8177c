package pjrt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoTPUChips is returned (wrapped) for the tpu kind when libtpu is
// installed but the machine has no TPU chips. libtpu itself, started on
// such a machine, spends minutes asking a cloud metadata server for a TPU
// topology before it fails, so the chips are counted first, the way JAX
// does: PCI devices of Google's vendor id.
var ErrNoTPUChips = errors.New("but this machine has no TPU chips")

// googlePCIVendor is the PCI vendor id of TPU chips.
const googlePCIVendor = "0x1ae0"

// TPUChips counts the TPU chips of this machine: PCI devices of Google's
// vendor id, or else /dev/accel* devices (TPU VMs).
func TPUChips() int { return tpuChipsIn("/sys/bus/pci/devices", "/dev") }

func tpuChipsIn(pciDir, devDir string) int {
	n := 0
	for _, v := range globAll(filepath.Join(pciDir, "*", "vendor")) {
		if b, err := os.ReadFile(v); err == nil && strings.TrimSpace(string(b)) == googlePCIVendor {
			n++
		}
	}
	if n == 0 {
		n = len(globAll(filepath.Join(devDir, "accel*")))
	}
	return n
}

// noTPUChips is the error for a libtpu found on a machine without chips.
func noTPUChips(path string) error {
	desc := path
	if v := InstalledVersion(path); v != "" {
		desc += ", " + v
	}
	if info, err := Inspect(path); err == nil {
		desc += fmt.Sprintf(", PJRT C API %d.%d", info.Major, info.Minor)
	}
	return fmt.Errorf("libtpu found (%s), %w", desc, ErrNoTPUChips)
}
