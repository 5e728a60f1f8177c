package main

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

// Report is the sweep's table: the generator's cases with the runner's
// results.
type Report struct {
	Device string
	Cases  []*Case
	Res    map[string]Result
}

// NewReport joins cases and results.
func NewReport(cases []*Case, res map[string]Result, device string) *Report {
	return &Report{Device: device, Cases: cases, Res: res}
}

// counts tallies outcomes.
type counts map[Outcome]int

func (c counts) total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// outcome is the result of a counted case ("" if it has not been run).
func (r *Report) outcome(c *Case) Outcome { return r.Res[c.Name].Outcome }

// tally counts the counted cases (sample inputs, or error inputs).
func (r *Report) tally(errorInputs bool) (all counts, notRun int) {
	all = counts{}
	for _, c := range r.Cases {
		if !c.Counted() || (c.ExpectError != "") != errorInputs {
			continue
		}
		if o := r.outcome(c); o != "" {
			all[o]++
		} else {
			notRun++
		}
	}
	return all, notRun
}

// Summary is the few lines the command prints.
func (r *Report) Summary() string {
	var b strings.Builder
	all, notRun := r.tally(false)
	n := all.total()
	fmt.Fprintf(&b, "%s: %d of %d cases pass (%s)", r.Device, all[Pass], n, pct(all[Pass], n))
	for _, o := range Outcomes[1:] {
		if all[o] > 0 {
			fmt.Fprintf(&b, ", %d %s", all[o], o)
		}
	}
	if notRun > 0 {
		fmt.Fprintf(&b, "; %d not run", notRun)
	}
	b.WriteString("\n")
	if e, _ := r.tally(true); e.total() > 0 {
		fmt.Fprintf(&b, "error inputs: %d of %d rejected with an error", e[Pass], e.total())
		for _, o := range Outcomes[1:] {
			if e[o] > 0 {
				fmt.Fprintf(&b, ", %d %s", e[o], o)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func pct(a, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(a)/float64(n))
}

// Markdown renders the whole table.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# OpInfo coverage: device `%s`\n\n", r.Device)
	b.WriteString(`Every entry of PyTorch's operator database (` + "`op_db`" + ` of
` + "`torch.testing._internal.common_methods_invocations`" + `), for every dtype its CPU
kernels support, up to three sample inputs per dtype (spread over the OpInfo's samples, own
seed per op and dtype): each sample is wrapped in a module, exported with
` + "`torch.export.export`" + ` (Debian's PyTorch 2.14, through ` + "`../shared/tools/torch-oracle`" + `), run
by torchtpu and compared with PyTorch's eager outputs at torch.testing's default tolerance of
the dtype (ops whose values are random or uninitialized memory: dtype and shape only).
Made by (see ` + "`tools/opinfo/README.md`" + `):

    tools/opinfo/sweep.sh            # gen.py in the chroot, then go run ./tools/opinfo

`)
	all, notRun := r.tally(false)
	n := all.total()
	b.WriteString("## Totals\n\n| outcome | cases | share |\n|---|---:|---:|\n")
	for _, o := range Outcomes {
		if o == Accepted {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", o, all[o], pct(all[o], n))
	}
	fmt.Fprintf(&b, "| **counted** | **%d** | |\n", n)
	if notRun > 0 {
		fmt.Fprintf(&b, "| not run yet | %d | |\n", notRun)
	}
	b.WriteString("\nNot counted (PyTorch itself could not run, export or hand over the sample):\n\n| status | cases |\n|---|---:|\n")
	skipped := map[string]int{}
	for _, c := range r.Cases {
		if !c.Counted() {
			skipped[c.Status]++
		}
	}
	for _, s := range sortedKeys(skipped) {
		fmt.Fprintf(&b, "| %s | %d |\n", s, skipped[s])
	}
	r.byDType(&b)
	r.byCause(&b)
	r.missingOps(&b)
	r.byOp(&b)
	r.failures(&b)
	r.errorInputs(&b)
	r.notCounted(&b)
	return b.String()
}

func (r *Report) byDType(b *strings.Builder) {
	per := map[string]counts{}
	for _, c := range r.Cases {
		if c.Counted() && c.ExpectError == "" && r.outcome(c) != "" {
			if per[c.DType] == nil {
				per[c.DType] = counts{}
			}
			per[c.DType][r.outcome(c)]++
		}
	}
	b.WriteString("\n## By dtype\n\n| dtype | cases | pass |")
	for _, o := range Outcomes[1 : len(Outcomes)-1] {
		fmt.Fprintf(b, " %s |", o)
	}
	b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|", len(Outcomes)-2) + "\n")
	for _, d := range sortedKeys(per) {
		c := per[d]
		fmt.Fprintf(b, "| %s | %d | %d (%s) |", d, c.total(), c[Pass], pct(c[Pass], c.total()))
		for _, o := range Outcomes[1 : len(Outcomes)-1] {
			fmt.Fprintf(b, " %d |", c[o])
		}
		b.WriteString("\n")
	}
}

func (r *Report) missingOps(b *strings.Builder) {
	per := map[string]int{}
	for _, c := range r.Cases {
		for _, m := range r.Res[c.Name].Missing {
			per[m]++
		}
	}
	if len(per) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Ops without a registry entry (%d)\n\n| op | cases |\n|---|---:|\n", len(per))
	names := sortedKeys(per)
	sort.SliceStable(names, func(i, j int) bool { return per[names[i]] > per[names[j]] })
	for _, m := range names {
		fmt.Fprintf(b, "| `%s` | %d |\n", m, per[m])
	}
}

func (r *Report) byOp(b *strings.Builder) {
	type row struct {
		cases, pass, skipped int
		other                map[string]int // "dtype: outcome"
	}
	rows := map[string]*row{}
	for _, c := range r.Cases {
		if c.ExpectError != "" {
			continue
		}
		w := rows[c.Op]
		if w == nil {
			w = &row{other: map[string]int{}}
			rows[c.Op] = w
		}
		if !c.Counted() {
			w.skipped++
			continue
		}
		w.cases++
		switch o := r.outcome(c); o {
		case Pass:
			w.pass++
		case "":
			w.other[c.DType+": not run"]++
		default:
			w.other[c.DType+": "+string(o)]++
		}
	}
	b.WriteString("\n## By op\n\n| op | cases | pass | not counted | failing (dtype: outcome ×cases) |\n|---|---:|---:|---:|---|\n")
	for _, op := range sortedKeys(rows) {
		w := rows[op]
		var fails []string
		for _, k := range sortedKeys(w.other) {
			fails = append(fails, fmt.Sprintf("%s ×%d", k, w.other[k]))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s |\n", op, w.cases, w.pass, w.skipped, strings.Join(fails, "; "))
	}
}

func (r *Report) failures(b *strings.Builder) {
	var rows []string
	for _, c := range r.Cases {
		if !c.Counted() || c.ExpectError != "" {
			continue
		}
		if res, ok := r.Res[c.Name]; ok && res.Outcome != Pass {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", c.Name, res.Outcome, cell(res.Detail, 240)))
		}
	}
	fmt.Fprintf(b, "\n## Every counted case that does not pass (%d)\n\n| case | outcome | cause |\n|---|---|---|\n", len(rows))
	for _, l := range rows {
		b.WriteString(l + "\n")
	}
}

func (r *Report) errorInputs(b *strings.Builder) {
	e, notRun := r.tally(true)
	if e.total()+notRun == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Error inputs\n\nOpInfo's `error_inputs` that `torch.export` lets through (PyTorch raises when it runs them): torchtpu must fail with an error, not run them and not panic. %d cases: %d rejected with an error",
		e.total(), e[Pass])
	for _, o := range Outcomes[1:] {
		if e[o] > 0 {
			fmt.Fprintf(b, ", %d %s", e[o], o)
		}
	}
	b.WriteString(".\n\n| case | outcome | PyTorch's error | torchtpu's |\n|---|---|---|---|\n")
	for _, c := range r.Cases {
		if c.Counted() && c.ExpectError != "" {
			res := r.Res[c.Name]
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.Name, res.Outcome, cell(c.ExpectError, 120), cell(res.Detail, 200))
		}
	}
}

func (r *Report) notCounted(b *strings.Builder) {
	type key struct{ status, op string }
	per := map[key][]*Case{}
	for _, c := range r.Cases {
		if !c.Counted() {
			k := key{c.Status, c.Op}
			per[k] = append(per[k], c)
		}
	}
	keys := make([]key, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].status != keys[j].status {
			return keys[i].status < keys[j].status
		}
		return keys[i].op < keys[j].op
	})
	b.WriteString("\n## Not counted, by op\n\n| status | op | cases | dtypes | PyTorch's message (first case) |\n|---|---|---:|---|---|\n")
	for _, k := range keys {
		cs := per[k]
		dts := map[string]bool{}
		for _, c := range cs {
			dts[c.DType] = true
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", k.status, k.op, len(cs), strings.Join(sortedKeys(dts), " "), cell(cs[0].Error, 160))
	}
}

// cell makes text safe for one markdown table cell.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

//go:embed causes.tsv
var causesTSV string

// causes maps an OpInfo to the diagnosed cause of its failing cases
// (causes.tsv: "OpInfo<TAB>cause" lines, # comments).
func causes() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(causesTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if op, why, ok := strings.Cut(line, "\t"); ok {
			m[op] = why
		}
	}
	return m
}

// byCause lists the OpInfos with counted cases that do not pass, with
// their count, dtypes and cause (causes.tsv).
func (r *Report) byCause(b *strings.Builder) {
	type row struct {
		n      int
		dtypes map[string]bool
	}
	rows := map[string]*row{}
	for _, c := range r.Cases {
		if !c.Counted() || c.ExpectError != "" {
			continue
		}
		if res, ok := r.Res[c.Name]; !ok || res.Outcome == Pass {
			continue
		}
		w := rows[c.Op]
		if w == nil {
			w = &row{dtypes: map[string]bool{}}
			rows[c.Op] = w
		}
		w.n++
		w.dtypes[c.DType] = true
	}
	why := causes()
	b.WriteString("\n## Remaining failures by cause\n\n| OpInfo | cases | dtypes | cause |\n|---|---:|---|---|\n")
	for _, op := range sortedKeys(rows) {
		cause := why[op]
		if cause == "" {
			cause = "not diagnosed yet"
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", op, rows[op].n, strings.Join(sortedKeys(rows[op].dtypes), ", "), cause)
	}
}
