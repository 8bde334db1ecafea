// Package cniimage is the layout of the image that carries the network
// add-ons' CNI plugins: the embedded platform builds it, and
// cluster-network-addons-operator's DaemonSets copy from it onto the nodes.
// It has no dependencies so that both agree without linking each other.
package cniimage

// MultusBinary is Multus's thin plugin, where upstream's image keeps it.
const MultusBinary = "/usr/src/multus-cni/bin/multus"

// PluginDir holds the bridge and tuning plugins, where upstream's Linux
// bridge image keeps them.
const PluginDir = "/usr/src/github.com/containernetworking/plugins/bin"

// LinuxBridgePlugins are the plugins of PluginDir, each installed on the
// nodes also as cnv-<name>.
var LinuxBridgePlugins = []string{"bridge", "tuning"}
