package vmistatus

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// MigrationRefusal is upstream's reason a VMI cannot migrate now, with
// upstream's words: it finished, or its LiveMigratable condition says why
// not. Nil when it may.
func MigrationRefusal(vmi *kubevirtv1.VirtualMachineInstance) error {
	if vmi.IsFinal() {
		return errors.New("Cannot migrate VMI in finalized state.")
	}
	for _, c := range vmi.Status.Conditions {
		if c.Type == kubevirtv1.VirtualMachineInstanceIsMigratable && c.Status == corev1.ConditionFalse {
			return fmt.Errorf("Cannot migrate VMI, Reason: %s, Message: %s", c.Reason, c.Message)
		}
	}
	return nil
}

// InFlightMigration is upstream's refusal of a second migration of a VMI
// while the one with that UID has not finished.
func InFlightMigration(migrationUID, vmi string) error {
	return fmt.Errorf("in-flight migration detected. Active migration job (%s) is currently already in progress for VMI %s.", migrationUID, vmi)
}
