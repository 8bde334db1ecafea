package fidelity

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// podFields place and run the launcher pod, or the guest's lifecycle.
var podFields = map[string]field{
	"spec.priorityClassName":  pod("vm-high", `"priorityClassName":"vm-high"`),
	"spec.nodeSelector":       pod(map[string]string{"zone": "a"}, `"zone":"a"`),
	"spec.affinity":           pod(corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{}}, `"podAntiAffinity"`),
	"spec.schedulerName":      pod("vm-scheduler", `"schedulerName":"vm-scheduler"`),
	"spec.serviceAccountName": pod("vm-account", `"serviceAccountName":"vm-account"`),
	"spec.tolerations[]":      pod(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}, `"key":"gpu"`),
	"spec.topologySpreadConstraints[]": pod(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway},
		`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone"`),
	"spec.evictionStrategy":                           by("TestADrainMovesALiveMigrateGuestOffItsNode"),
	"spec.startStrategy":                              domV("Paused", `<bootmenu enable="yes" timeout="10000">`),
	"spec.terminationGracePeriodSeconds":              pod(int64(7), `"terminationGracePeriodSeconds":22`),
	"spec.hostname":                                   pod("web", `"hostname":"web"`),
	"spec.subdomain":                                  pod("guests", `"subdomain":"guests"`),
	"spec.dnsPolicy":                                  pod("Default", `"dnsPolicy":"Default"`),
	"spec.dnsConfig":                                  pod(corev1.PodDNSConfig{Nameservers: []string{"192.0.2.53"}}, `"nameservers":["192.0.2.53"]`),
	"spec.architecture":                               ref("arm64", "spec.domain.machine.type is not supported: q35 (allowed values: [virt*])"),
	"spec.resourceClaims[].name":                      pod("gpu-claim", `"resourceClaims":[{"name":"gpu-claim"`),
	"spec.resourceClaims[].resourceClaimName":         pod("shared-gpu", `"resourceClaimName":"shared-gpu"`).with(resourceClaim),
	"spec.resourceClaims[].resourceClaimTemplateName": pod("gpu-template", `"resourceClaimTemplateName":"gpu-template"`).with(resourceClaim),
	"spec.utilityVolumes[]":                           ref(corev1.PersistentVolumeClaimVolumeSource{ClaimName: "u"}, "utility volumes can only be added via hotplug"),
	"spec.utilityVolumes[].name":                      ref("u", "utility volumes can only be added via hotplug"),
	"spec.utilityVolumes[].type":                      ref("MemoryDump", "utility volumes can only be added via hotplug"),

	"spec.readinessProbe.tcpSocket":           pod(corev1.TCPSocketAction{Port: intstr.FromInt32(22)}, `"readinessProbe":{"tcpSocket":{"port":22}`),
	"spec.readinessProbe.httpGet":             pod(corev1.HTTPGetAction{Port: intstr.FromInt32(80), Path: "/ready"}, `"readinessProbe":{"httpGet":{"path":"/ready"`),
	"spec.readinessProbe.exec":                ref(corev1.ExecAction{Command: []string{"true"}}, notYet("an exec or guest agent probe")),
	"spec.readinessProbe.guestAgentPing":      ref(nil, notYet("an exec or guest agent probe")),
	"spec.readinessProbe.initialDelaySeconds": pod(int32(31), `"initialDelaySeconds":41`).with(tcpProbe),
	"spec.readinessProbe.timeoutSeconds":      pod(int32(32), `"timeoutSeconds":32`).with(tcpProbe),
	"spec.readinessProbe.periodSeconds":       pod(int32(33), `"periodSeconds":33`).with(tcpProbe),
	"spec.readinessProbe.successThreshold":    pod(int32(34), `"successThreshold":34`).with(tcpProbe),
	"spec.readinessProbe.failureThreshold":    pod(int32(35), `"failureThreshold":35`).with(tcpProbe),
	"spec.livenessProbe.tcpSocket":            pod(corev1.TCPSocketAction{Port: intstr.FromInt32(22)}, `"livenessProbe":{"tcpSocket":{"port":22}`),
	"spec.livenessProbe.httpGet":              pod(corev1.HTTPGetAction{Port: intstr.FromInt32(80), Path: "/alive"}, `"livenessProbe":{"httpGet":{"path":"/alive"`),
	"spec.livenessProbe.exec":                 ref(corev1.ExecAction{Command: []string{"true"}}, notYet("an exec or guest agent probe")),
	"spec.livenessProbe.guestAgentPing":       ref(nil, notYet("an exec or guest agent probe")),
	"spec.livenessProbe.initialDelaySeconds":  pod(int32(51), `"initialDelaySeconds":61`).with(tcpProbe),
	"spec.livenessProbe.timeoutSeconds":       pod(int32(42), `"timeoutSeconds":42`).with(tcpProbe),
	"spec.livenessProbe.periodSeconds":        pod(int32(43), `"periodSeconds":43`).with(tcpProbe),
	"spec.livenessProbe.successThreshold":     pod(int32(1), `"livenessProbe":{"tcpSocket":{"port":22},"initialDelaySeconds":10,"successThreshold":1`).with(tcpProbe),
	"spec.livenessProbe.failureThreshold":     pod(int32(45), `"failureThreshold":45`).with(tcpProbe),

	"spec.accessCredentials[].sshPublicKey.source.secret.secretName":                 by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.accessCredentials[].sshPublicKey.propagationMethod.noCloud":                by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.accessCredentials[].sshPublicKey.propagationMethod.configDrive":            ref(nil, "requires a configDrive volume"),
	"spec.accessCredentials[].sshPublicKey.propagationMethod.qemuGuestAgent.users[]": by("TestCredentialsTheGuestAgentWouldSetAreReportedNotSynchronized"),
	"spec.accessCredentials[].userPassword.source.secret.secretName":                 by("TestCredentialsTheGuestAgentWouldSetAreReportedNotSynchronized"),
	"spec.accessCredentials[].userPassword.propagationMethod.qemuGuestAgent":         by("TestCredentialsTheGuestAgentWouldSetAreReportedNotSynchronized"),
}

func resourceClaim(v *kubevirtv1.VirtualMachineInstance) {
	v.Spec.ResourceClaims = []kubevirtv1.VirtualMachineInstanceResourceClaim{{Name: "gpu-claim"}}
}

// volumeFields are the volume sources'.
var volumeFields = map[string]field{
	"spec.volumes[].name":                                      by("TestTheTestGuestBootsInAPodFromAContainerDisk"),
	"spec.volumes[].containerDisk.image":                       pod("registry.example/other:2", `registry.example/other:2`),
	"spec.volumes[].containerDisk.imagePullSecret":             pod("registry-pull", `"imagePullSecrets":[{"name":"registry-pull"}]`),
	"spec.volumes[].containerDisk.imagePullPolicy":             pod("Always", `"pullPolicy":"Always"`),
	"spec.volumes[].containerDisk.path":                        by("TestLauncherBootsTheTestGuestUnderSessionLibvirt"),
	"spec.volumes[].persistentVolumeClaim":                     pod(corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-claim"}, `"claimName":"data-claim"`).with(volume),
	"spec.volumes[].persistentVolumeClaim.hotpluggable":        ref(true, notYet("a hotpluggable volume")).with(claimVolume),
	"spec.volumes[].dataVolume.name":                           by("TestVMBootsFromAnImportedDataVolume"),
	"spec.volumes[].dataVolume.hotpluggable":                   ref(true, notYet("a hotpluggable volume")).with(dataVolume),
	"spec.volumes[].emptyDisk.capacity":                        by("TestABlockMigrationCopiesTheDisksTheGuestWritesInThePod"),
	"spec.volumes[].cloudInitNoCloud.userData":                 by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitNoCloud.userDataBase64":           by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitNoCloud.secretRef":                by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitNoCloud.networkData":              by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitNoCloud.networkDataBase64":        by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitNoCloud.networkDataSecretRef":     by("TestNoCloudTakesSecretsAndAccessCredentialKeys"),
	"spec.volumes[].cloudInitConfigDrive.userData":             ref("#cloud-config", notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].cloudInitConfigDrive.userDataBase64":       ref("I2Nsb3VkLWNvbmZpZw==", notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].cloudInitConfigDrive.secretRef":            ref(corev1.LocalObjectReference{Name: "ud"}, notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].cloudInitConfigDrive.networkData":          ref("version: 2", notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].cloudInitConfigDrive.networkDataBase64":    ref("dmVyc2lvbjogMg==", notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].cloudInitConfigDrive.networkDataSecretRef": ref(corev1.LocalObjectReference{Name: "nd"}, notYet("cloudInitConfigDrive volume")).with(volume),
	"spec.volumes[].hostDisk.path":                             ref("/data/disk.img", "HostDisk feature gate is not enabled").with(volume),
	"spec.volumes[].hostDisk.type":                             ref("Disk", "HostDisk feature gate is not enabled").with(volume),
	"spec.volumes[].hostDisk.capacity":                         ref(quantity("1Gi"), "HostDisk feature gate is not enabled").with(volume),
	"spec.volumes[].hostDisk.shared":                           ref(true, "HostDisk feature gate is not enabled").with(volume),
	"spec.volumes[].sysprep.secret":                            ref(corev1.LocalObjectReference{Name: "unattend"}, notYet("sysprep volume")).with(volume),
	"spec.volumes[].sysprep.configMap":                         ref(corev1.LocalObjectReference{Name: "unattend"}, notYet("sysprep volume")).with(volume),
	"spec.volumes[].ephemeral.persistentVolumeClaim":           ref(corev1.PersistentVolumeClaimVolumeSource{ClaimName: "base"}, notYet("ephemeral volume")).with(volume),
	"spec.volumes[].configMap":                                 ref(corev1.LocalObjectReference{Name: "cm"}, notYet("configMap volume")).with(volume),
	"spec.volumes[].configMap.optional":                        ref(true, notYet("configMap volume")).with(volume),
	"spec.volumes[].configMap.volumeLabel":                     ref("CFG", notYet("configMap volume")).with(volume),
	"spec.volumes[].secret.secretName":                         ref("s", notYet("secret volume")).with(volume),
	"spec.volumes[].secret.optional":                           ref(true, notYet("secret volume")).with(volume),
	"spec.volumes[].secret.volumeLabel":                        ref("SEC", notYet("secret volume")).with(volume),
	"spec.volumes[].downwardAPI.fields[]":                      ref(corev1.DownwardAPIVolumeFile{Path: "labels"}, notYet("downwardAPI volume")).with(volume),
	"spec.volumes[].downwardAPI.volumeLabel":                   ref("DAPI", notYet("downwardAPI volume")).with(volume),
	"spec.volumes[].serviceAccount.serviceAccountName":         ref("default", notYet("serviceAccount volume")).with(volume),
	"spec.volumes[].memoryDump":                                ref(corev1.PersistentVolumeClaimVolumeSource{ClaimName: "dump"}, notYet("memoryDump volume")).with(volume),
	"spec.volumes[].memoryDump.hotpluggable":                   ref(true, notYet("memoryDump volume")).with(volume),
	"spec.volumes[].containerPath.path":                        ref("/data", notYet("containerPath volume")).with(volume),
	"spec.volumes[].containerPath.readOnly":                    ref(true, notYet("containerPath volume")).with(volume),
	"spec.volumes[].downwardMetrics":                           ref(nil, "DownwardMetrics feature gate is not enabled").with(volume),
}

func claimVolume(v *kubevirtv1.VirtualMachineInstance) {
	volume(v)
	v.Spec.Volumes[1].PersistentVolumeClaim = &kubevirtv1.PersistentVolumeClaimVolumeSource{}
	v.Spec.Volumes[1].PersistentVolumeClaim.ClaimName = "data-claim"
}

func dataVolume(v *kubevirtv1.VirtualMachineInstance) {
	volume(v)
	v.Spec.Volumes[1].DataVolume = &kubevirtv1.DataVolumeSource{Name: "data-dv"}
}
