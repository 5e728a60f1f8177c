package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/torchtpu/torchtpu/backend/pjrt"
)

func init() {
	c := &command{name: "devices", usage: "[--plugin PATH]... [--no-open]", summary: "list the devices: the native cpu backend and every PJRT plugin found"}
	c.run = func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
		fs := newFlags(c, stderr, `
Lists the embedded cpu backend and, for each PJRT device kind (tpu, cuda,
xla-cpu), the plugin found and its devices, or why none is usable.

Plugins are searched in --plugin paths, PJRT_PLUGIN_LIBRARY_PATH (files or
folders, ':'-separated), TPU_LIBRARY_PATH, the folders scripts/install-pjrt.sh
installs into ($TORCHTPU_PJRT_DIR/KIND, default ~/.cache/torchtpu/pjrt/KIND),
Python site-packages (libtpu, jax_plugins/xla_cuda12) and
/usr/local/lib/gomlx/pjrt. libtpu is only started where the machine has TPU
chips (PCI devices of Google's vendor id, or /dev/accel*).

Each plugin gets one client per process, shared by every program on its
devices. Client options (PJRT_Client_Create named values) come from
TORCHTPU_PJRT_OPTIONS: ';'-separated KEY=VALUE or KIND:KEY=VALUE entries,
e.g. 'cuda:memory_fraction=0.5;cuda:preallocate=false'.`)
		var plugins stringList
		fs.Var(&plugins, "plugin", "PJRT plugin file or folder to search first (repeatable)")
		noOpen := fs.Bool("no-open", false, "only inspect plugin files; do not create clients")
		if err := fs.Parse(args); err != nil {
			return 2, err
		}
		if fs.NArg() > 0 {
			return 2, fmt.Errorf("unexpected argument %q: %w", fs.Arg(0), errUsage)
		}
		if len(plugins) > 0 {
			if err := pjrt.AddPluginPaths(plugins...); err != nil {
				return 2, err
			}
		}
		code := 0
		for _, p := range plugins {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				if _, err := pjrt.Inspect(p); err != nil {
					fmt.Fprintf(stderr, "torchtpu devices: --plugin %s: %v\n", p, err)
					code = 1
				}
			}
		}
		fmt.Fprintf(stdout, "cpu      native Go backend, %d threads (%s/%s)\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
		for _, st := range pjrt.Probe(!*noOpen) {
			switch {
			case st.Err != nil && st.Path == "":
				fmt.Fprintf(stdout, "%-8s not found: %v\n", st.Kind, st.Err)
			case errors.Is(st.Err, pjrt.ErrNoTPUChips):
				fmt.Fprintf(stdout, "%-8s %v\n", st.Kind, st.Err)
			case st.Err != nil:
				fmt.Fprintf(stdout, "%-8s unusable: %v\n", st.Kind, st.Err)
			default:
				desc := "PJRT C API " + st.Version
				if st.Platform != "" {
					desc = "platform " + st.Platform + ", " + desc
				}
				if st.Package != "" {
					desc = st.Package + ", " + desc
				}
				fmt.Fprintf(stdout, "%-8s %s (%s)\n", st.Kind, st.Path, desc)
				for _, d := range st.Devices {
					fmt.Fprintf(stdout, "           %s\n", d)
				}
			}
		}
		return code, nil
	}
	register(c)
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
