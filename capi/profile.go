package capi

import (
	"context"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/eager"
)

// ProfileStop stops the device's profiler and returns its records as the
// text tt_profiler_stop documents: "start end tag kind name" lines.
func ProfileStop(ctx context.Context, d *eager.Device) ([]byte, error) {
	recs, dropped, err := d.ProfileStop(ctx)
	var b []byte
	for _, r := range recs {
		b = strconv.AppendInt(b, r.Start, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, r.End, 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, r.Tag, 10)
		b = append(b, ' ')
		b = append(b, r.Kind.String()...)
		b = append(b, ' ')
		b = append(b, strings.ReplaceAll(r.Name, "\n", " ")...)
		b = append(b, '\n')
	}
	if dropped > 0 {
		b = append(b, "dropped "...)
		b = strconv.AppendInt(b, dropped, 10)
		b = append(b, '\n')
	}
	return b, err
}
