//go:build cgo

package pjrt

// Topology is what a client sees of the processes that share its devices:
// on a multi-host slice (a plugin with a distributed runtime), devices of
// other processes appear in Devices with their process index but not among
// the addressable ones.
type Topology struct {
	Process     int   // the client's process index
	Devices     []int // the process index of every device the client knows
	Addressable int   // how many of them this process drives
}

// Topology returns the client's view of the processes and devices.
func (b *Backend) Topology() (Topology, error) {
	c := b.shared.client
	t := Topology{Process: c.ProcessIndex(), Addressable: len(c.AddressableDevices())}
	all, err := c.AllDevices()
	if err != nil {
		return t, err
	}
	for _, d := range all {
		desc, err := d.GetDescription()
		if err != nil {
			return t, err
		}
		t.Devices = append(t.Devices, desc.ProcessIndex())
	}
	return t, nil
}
