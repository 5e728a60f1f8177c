// Command torchtpu runs PyTorch programs (torch.export archives) and
// StableHLO modules on the embedded CPU backend and on PJRT devices.
//
// Each subcommand lives in its own file (cmd_<name>.go) and registers itself
// in init(); this file only dispatches.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	name    string // "run", "stablehlo run"
	usage   string // one line: arguments
	summary string // one line: what it does
	// run executes the command; args exclude the command name. It returns
	// the process exit code; errors it returns are printed and exit 1.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks a command-line mistake: printed with the command's usage.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "torchtpu runs PyTorch programs (torch.export .pt2 archives) and StableHLO modules")
	fmt.Fprintln(w, "on the embedded CPU backend and on PJRT devices (TPU, GPU, XLA CPU).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: torchtpu COMMAND [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  %-40s %s\n", c.name+" "+c.usage, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'torchtpu COMMAND -h' for a command's flags.")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch finds the longest registered command name that prefixes args.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	var c *command
	n := 0
	for i := len(args); i >= 1; i-- {
		if cc, ok := commands[strings.Join(args[:i], " ")]; ok {
			c, n = cc, i
			break
		}
	}
	if c == nil {
		fmt.Fprintf(stderr, "torchtpu: unknown command %q\n\n", strings.Join(args, " "))
		usage(stderr)
		return 2
	}
	code, err := c.run(ctx, args[n:], stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "torchtpu %s: %v\nusage: torchtpu %s %s\n", c.name, err, c.name, c.usage)
			return 2
		}
		fmt.Fprintf(stderr, "torchtpu %s: %v\n", c.name, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// newFlags makes a FlagSet for a command whose -h prints a helpful usage.
func newFlags(c *command, stderr io.Writer, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: torchtpu %s %s\n\n%s\n", c.name, c.usage, strings.TrimSpace(help))
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}
