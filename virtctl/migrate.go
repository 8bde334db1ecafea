package virtctl

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// migrationsPath is where the namespace's VirtualMachineInstanceMigrations
// are served.
func (c *command) migrationsPath() string {
	return "/apis/kubevirt.io/v1/namespaces/" + c.namespace + "/virtualmachineinstancemigrations"
}

// migrate asks virt-api to migrate a VM, as upstream's virtctl does: the
// subresource creates the migration, so RBAC on virtualmachines/migrate
// decides who may.
func (c *command) migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dryRun := fs.Bool("dry-run", false, "perform a dry run without changing anything")
	selector := nodeSelector{}
	fs.Var(selector, "addedNodeSelector", "key=value[,key=value]: restrict the target nodes of this migration")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("migrate", names)
	if err != nil {
		return err
	}
	opts := kubevirtv1.MigrateOptions{DryRun: c.dryRun(*dryRun)}
	if len(selector) > 0 {
		opts.AddedNodeSelector = selector
	}
	if err := c.put(ctx, "virtualmachines", name, "migrate", opts); err != nil {
		return fmt.Errorf("Error migrating VirtualMachine %w", err)
	}
	_, err = fmt.Fprintf(c.out, "VM %s was scheduled to migrate\n", name)
	return err
}

// migrateCancel deletes the VM's migration still in flight, which aborts
// it; upstream has no subresource for it either.
func (c *command) migrateCancel(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate-cancel", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dryRun := fs.Bool("dry-run", false, "perform a dry run without changing anything")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("migrate-cancel", names)
	if err != nil {
		return err
	}
	mig, err := c.inFlightMigration(ctx, name)
	if err != nil {
		return err
	}
	if err := c.deleteMigration(ctx, mig, c.dryRun(*dryRun)); err != nil {
		return fmt.Errorf("Error canceling migration %s of a VirtualMachine %s: %w", mig, name, err)
	}
	_, err = fmt.Fprintf(c.out, "VM %s was scheduled to migrate-cancel\n", name)
	return err
}

// inFlightMigration names the first of the VM's migrations that has not
// finished: there is at most one, beside any number of finished ones.
func (c *command) inFlightMigration(ctx context.Context, vm string) (string, error) {
	raw, err := c.client.Get().AbsPath(c.migrationsPath()).
		Param("labelSelector", kubevirtv1.MigrationSelectorLabel+"=="+vm).Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("Error fetching virtual machine instance migration list  %w", err)
	}
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	if err := json.Unmarshal(raw, list); err != nil {
		return "", fmt.Errorf("Error fetching virtual machine instance migration list  %w", err)
	}
	for _, mig := range list.Items {
		if !mig.IsFinal() {
			return mig.Name, nil
		}
	}
	return "", fmt.Errorf("Found no migration to cancel for %s", vm)
}

func (c *command) deleteMigration(ctx context.Context, name string, dryRun []string) error {
	body, err := json.Marshal(metav1.DeleteOptions{
		TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}, DryRun: dryRun,
	})
	if err != nil {
		return fmt.Errorf("encoding the delete options: %w", err)
	}
	return c.client.Delete().AbsPath(c.migrationsPath(), name).
		Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Error()
}

// dryRun is the request's dryRun field, announced as upstream's virtctl
// does.
func (c *command) dryRun(on bool) []string {
	if !on {
		return nil
	}
	fmt.Fprintln(c.out, "Dry Run execution")
	return []string{metav1.DryRunAll}
}

// nodeSelector takes key=value pairs, comma separated, across repeated
// flags, as upstream's --addedNodeSelector; a single pair keeps any comma
// in its value.
type nodeSelector map[string]string

func (s nodeSelector) String() string {
	pairs := make([]string, 0, len(s))
	for k, v := range s {
		pairs = append(pairs, k+"="+v)
	}
	return strings.Join(pairs, ",")
}

func (s nodeSelector) Set(val string) error {
	pairs := []string{val}
	if strings.Count(val, "=") > 1 {
		pairs = strings.Split(val, ",")
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return errors.New(p + " must be formatted as key=value")
		}
		s[k] = v
	}
	return nil
}
