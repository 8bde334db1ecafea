package launcher

import (
	"context"

	"github.com/virtflow/virtflow/node/podnet"
)

// resolvConf is the pod's resolver configuration, which the guest gets.
const resolvConf = "/etc/resolv.conf"

// serveDHCP starts a DHCP server for each interface that gets its address
// from the launcher; they stop with ctx. A server that cannot start fails
// the launch: the guest would come up without its address.
func serveDHCP(ctx context.Context, plan podnet.Plan) error {
	for _, iface := range plan.Interfaces {
		if !iface.DHCP() {
			continue
		}
		lease, err := podnet.LeaseFor(iface, resolvConf)
		if err != nil {
			return err
		}
		started := make(chan error, 1)
		go func() {
			err := podnet.ServeDHCP(ctx, lease, started)
			if err != nil && ctx.Err() == nil {
				logf("%v", err)
			}
		}()
		if err := <-started; err != nil {
			return err
		}
		logf("serving DHCP on %s for interface %s: %s, gateway %s", iface.Bridge, iface.Name, iface.GuestAddress, iface.Gateway)
	}
	return nil
}
