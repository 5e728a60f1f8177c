package pjrt

import "fmt"

// checkAPI validates the version and size a plugin reports.
func checkAPI(info APIInfo) error {
	if info.Major != APIMajor {
		return fmt.Errorf("PJRT C API version %d.%d is not supported: this build speaks %d.x (%d.%d to %d.%d and newer minors)",
			info.Major, info.Minor, APIMajor, APIMajor, MinAPIMinor, APIMajor, BindingAPIMinor)
	}
	if info.Minor < MinAPIMinor {
		return fmt.Errorf("PJRT C API version %d.%d is too old: need %d.%d or newer", info.Major, info.Minor, APIMajor, MinAPIMinor)
	}
	need := uint64(apiHeaderBytes + 8*len(apiEntries))
	if info.StructSize < need {
		return fmt.Errorf("PJRT_Api table is %d bytes, too small for the %d entry points used (need %d bytes)",
			info.StructSize, len(apiEntries), need)
	}
	for _, f := range apiFarEntries {
		if need := uint64(apiHeaderBytes + 8*(f.Index+1)); info.StructSize < need {
			return fmt.Errorf("PJRT_Api table is %d bytes, too small to hold %s (entry %d, called on every compile; need %d bytes): the plugin is too old",
				info.StructSize, f.Name, f.Index, need)
		}
	}
	return nil
}
