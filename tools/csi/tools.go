//go:build tools

// Package tools pins kubernetes-csi's external-provisioner, the sidecar
// that provisions and deletes the hostpath CSI driver's volumes in the
// driver's DaemonSet (one per node, --node-deployment). Its command is a
// main package, which cannot be imported; one of the packages it is made
// of are, which keeps the module's requirements (the command's imports). It is built once into the
// cache (CGO_ENABLED=0).
package tools

import (
	_ "github.com/kubernetes-csi/csi-lib-utils/leaderelection"
	_ "github.com/kubernetes-csi/csi-lib-utils/metrics"
	_ "github.com/kubernetes-csi/csi-lib-utils/standardflags"
	_ "github.com/kubernetes-csi/external-provisioner/v5/pkg/capacity"
	_ "github.com/kubernetes-csi/external-provisioner/v5/pkg/capacity/topology"
	_ "github.com/kubernetes-csi/external-provisioner/v5/pkg/controller"
	_ "github.com/kubernetes-csi/external-provisioner/v5/pkg/features"
	_ "github.com/kubernetes-csi/external-provisioner/v5/pkg/owner"
	_ "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	_ "github.com/spf13/pflag"
	_ "k8s.io/apiserver/pkg/util/feature"
	_ "k8s.io/component-base/cli/flag"
	_ "k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
	_ "k8s.io/csi-translation-lib"
	_ "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"
	_ "sigs.k8s.io/sig-storage-lib-external-provisioner/v11/controller"
	_ "sigs.k8s.io/sig-storage-lib-external-provisioner/v11/controller/metrics"
)
