// Package virtadmission is KubeVirt's admission, the webhooks virt-api
// serves (commands/virtapiserver) and virt-operator registers
// (operators/kubevirt/kubevirt): VirtualMachine and VirtualMachineInstance
// validation with upstream's rules and messages (vm_validation.go,
// validate*.go) and defaults (vm_mutate.go, defaults.go, presets.go), the
// replica set, pool and preset validators (*_webhook.go), the
// VirtualMachineInstanceMigration validators and mutator
// (migration_webhook.go, migration_mutate.go), and the guard against
// deleting a KubeVirt CR while workloads remain (kubevirt_delete.go). webhooks.go holds the handlers and their paths,
// webhook_configs.go the webhook configurations and Webhooks, the
// handlers by path.
//
// It is not named admission so that it reads beside controller-runtime's
// admission package, which its handlers and their callers import.
package virtadmission
