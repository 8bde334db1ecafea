//go:build integration

package integration

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	cdic "github.com/virtflow/virtflow/contracts/cdi"
	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operands"
)

// The VM the browser creates, and the DataSource the create page proposes
// for it: the only boot source that is ready offline.
const (
	browserVM         = "browser-vm"
	browserDataSource = operands.DefaultBootImageNamespace + "/" + operands.TestGuestDataSource
)

// viewerIn makes a ServiceAccount bound to the view ClusterRole in ns
// and returns its token.
func viewerIn(t *testing.T, n *upRun, ns string) string {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, n.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"}}))
	require.NoError(t, n.c.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "viewer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "viewer"}}}))
	return createToken(t, n, ns, "viewer")
}

// adminBrowser logs the embedded console-admin in, in namespace ns.
func adminBrowser(t *testing.T, n *upRun, ns string) *browser {
	t.Helper()
	b := newBrowser(t, n.console, "admin")
	b.login(createToken(t, n, platform.Namespace, platform.ConsoleAdmin), "system:serviceaccount:"+platform.Namespace+":"+platform.ConsoleAdmin)
	b.chooseNamespace(ns)
	return b
}

// chooseNamespace makes ns the namespace the pages show, as the
// namespace selector remembers it.
func (b *browser) chooseNamespace(ns string) {
	b.t.Helper()
	b.eval(fmt.Sprintf(`localStorage.setItem('virtflow.namespace', %q)`, ns), nil)
}

// TestConsoleCreatesStartsAndShowsAVMInABrowser is the console as a person
// uses it: log in with a token, create a VM from an instance type and the
// proposed boot source, start it, read the guest's boot marker in the
// serial console and type a command there, see the VNC canvas draw; a
// viewer sees the VM with its start button disabled, and its forced start
// is refused by the cluster.
func TestConsoleCreatesStartsAndShowsAVMInABrowser(t *testing.T) {
	n := onNode(t)
	ns := n.namespace(t)
	bootSourceIsReady(t, n.c, operands.TestGuestDataSource)
	admin := adminBrowser(t, n, ns)
	admin.open("#/")
	admin.waitJS("the overview shows the HyperConverged's conditions", `[...document.querySelectorAll('[aria-label="HyperConverged conditions"] tbody tr')].some((r) => r.innerText.startsWith('Available'))`, time.Minute)
	admin.screenshot("overview")

	createVMFromInstancetype(admin, ns)
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, n.c.Get(context.Background(), crKey(ns, browserVM), vm))
	require.Equal(t, "u1.nano", vm.Spec.Instancetype.Name, "the VM names the instance type chosen")
	require.Equal(t, kubevirtv1.RunStrategyHalted, *vm.Spec.RunStrategy, "created without starting")
	t.Cleanup(func() { deleteVM(t, n.c, vm) })

	editVMAsYAML(t, n, admin, ns)
	viewerCannotStart(t, newBrowser(t, n.console, "viewer"), viewerIn(t, n, ns), ns)
	require.Equal(t, kubevirtv1.VirtualMachineStatusStopped, vmStatus(n.c, crKey(ns, browserVM)), "the viewer's forced start changed nothing")

	startAndReadSerialConsole(admin, ns)
	seeVNCFrame(admin, ns)
	admin.click(`[data-action=migrate]`)
	// Its disk is a DataVolume of the node's hostpath storage
	// (ReadWriteOnce): upstream's webhook refuses, and the console shows
	// the refusal in its words.
	admin.waitJS("the refusal to migrate is shown", `document.body.innerText.includes('Cannot migrate VMI, Reason: DisksNotLiveMigratable')`, 30*time.Second)
	list := &kubevirtv1.VirtualMachineInstanceMigrationList{}
	require.NoError(t, n.c.List(context.Background(), list, crclient.InNamespace(ns)))
	require.Empty(t, list.Items, "nothing was accepted")
	admin.route(fmt.Sprintf("#/vms/%s/%s", ns, browserVM))
	admin.waitJS("the overview says Running", `!!document.querySelector('[data-status="Running"]')`, time.Minute)
	admin.screenshot("vm-overview")
	admin.route("#/vms")
	admin.waitJS("the list shows the VM running", fmt.Sprintf(`!!document.querySelector('[data-vm="%s/%s"] [data-status="Running"]')`, ns, browserVM), time.Minute)
	admin.screenshot("vm-list")
}

func crKey(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// createVMFromInstancetype fills the create page: the boot source it
// proposes, the u1.nano instance type, a name, not started.
func createVMFromInstancetype(b *browser, ns string) {
	b.t.Helper()
	b.route("#/create-vm/" + ns)
	b.waitJS("the ready boot source is proposed", fmt.Sprintf(`document.querySelector('[data-testid=create-vm-datasource]')?.value === %q`, browserDataSource), time.Minute)
	b.waitJS("instance types listed", `!!document.querySelector('[data-testid=create-vm-instancetype] option[value="u1.nano"]')`, time.Minute)
	b.setField(`[data-testid=create-vm-instancetype]`, "u1.nano")
	b.setField(`[data-testid=create-vm-name]`, browserVM)
	if b.isChecked(`#create-vm-start`) {
		b.click(`#create-vm-start`)
	}
	require.False(b.t, b.isChecked(`#create-vm-start`))
	b.screenshot("create-vm")
	b.click(`[data-testid=create-vm-submit]`)
	b.waitJS("the VM's page opens", fmt.Sprintf(`location.hash === %q`, fmt.Sprintf("#/vms/%s/%s", ns, browserVM)), time.Minute)
	b.waitJS("the VM is Stopped", `!!document.querySelector('[data-status="Stopped"]')`, time.Minute)
}

func (b *browser) isChecked(selector string) bool {
	var v bool
	b.eval(fmt.Sprintf(`!!document.querySelector(%q)?.checked`, selector), &v)
	return v
}

// editVMAsYAML edits the VM in its YAML tab: a run strategy the webhook
// refuses is shown in the webhook's words and changes nothing; a label
// added in the text is saved.
func editVMAsYAML(t *testing.T, n *upRun, b *browser, ns string) {
	t.Helper()
	b.route(fmt.Sprintf("#/vms/%s/%s/yaml", ns, browserVM))
	b.waitJS("Edit enabled for the admin", enabledJS(`[data-testid=yaml-edit]`), time.Minute)
	b.click(`[data-testid=yaml-edit]`)
	editor := `[data-testid=yaml-editor]`
	b.waitJS("the editor holds the VM", fmt.Sprintf(`(document.querySelector(%q)?.value ?? '').includes('runStrategy: Halted')`, editor), 30*time.Second)
	var text string
	b.eval(fmt.Sprintf(`document.querySelector(%q).value`, editor), &text)

	b.setField(editor, strings.Replace(text, "runStrategy: Halted", "runStrategy: Bogus", 1))
	b.click(`[data-testid=yaml-save]`)
	b.waitJS("the webhook's refusal is shown", `(document.querySelector('[data-testid=yaml-error]')?.innerText ?? '').includes('Invalid RunStrategy (Bogus)')`, 30*time.Second)
	b.screenshot("vm-yaml-refused")

	// The VM's controller may write its status between loading and saving;
	// the page then reports the conflict and Reload starts over, as a
	// person would.
	for attempt := 1; ; attempt++ {
		b.click(`[data-testid=yaml-reload]`)
		b.waitJS("the editor holds the stored VM", fmt.Sprintf(`(document.querySelector(%q)?.value ?? '').includes('runStrategy: Halted')`, editor), 30*time.Second)
		b.eval(fmt.Sprintf(`document.querySelector(%q).value`, editor), &text)
		b.setField(editor, withLabel(text, "console.virtflow.io/edited", "yes"))
		b.click(`[data-testid=yaml-save]`)
		b.waitJS("the save is answered", `!!document.querySelector('[data-testid=yaml-saved], [data-testid=yaml-error]')`, 30*time.Second)
		var refusal string
		b.eval(`document.querySelector('[data-testid=yaml-error]')?.innerText ?? ''`, &refusal)
		if refusal == "" {
			break
		}
		require.Contains(t, refusal, "the object has been modified", "the save was refused")
		require.Less(t, attempt, 3, "three saves in a row met a conflict")
	}
	vm := &kubevirtv1.VirtualMachine{}
	require.NoError(t, n.c.Get(context.Background(), crKey(ns, browserVM), vm))
	require.Equal(t, "yes", vm.Labels["console.virtflow.io/edited"], "the label typed in the YAML was saved")
	require.Equal(t, kubevirtv1.RunStrategyHalted, *vm.Spec.RunStrategy)
	b.screenshot("vm-yaml-saved")
}

// withLabel adds a label to YAML as the console shows it (two-space
// indent), under metadata.labels, creating that map if it is missing.
func withLabel(text, key, value string) string {
	line := fmt.Sprintf("    %s: %q", key, value)
	if strings.Contains(text, "\n  labels:\n") {
		return strings.Replace(text, "\n  labels:\n", "\n  labels:\n"+line+"\n", 1)
	}
	return strings.Replace(text, "metadata:\n", "metadata:\n  labels:\n"+line+"\n", 1)
}

// viewerCannotStart logs a viewer in: the VM is there, Start is disabled
// with the access review's reason, and a start sent anyway is refused by
// the cluster as that user.
func viewerCannotStart(t *testing.T, viewer *browser, token, ns string) {
	t.Helper()
	viewer.login(token, "system:serviceaccount:"+ns+":viewer")
	viewer.chooseNamespace(ns)
	viewer.open("#/vms")
	viewer.waitJS("the viewer sees the VM", fmt.Sprintf(`!!document.querySelector('[data-vm="%s/%s"]')`, ns, browserVM), time.Minute)
	viewer.route(fmt.Sprintf("#/vms/%s/%s", ns, browserVM))
	viewer.waitJS("the access review decided", `(() => {
  const b = document.querySelector('[data-action=start]');
  return !!b && b.getAttribute('aria-disabled') === 'true';
})()`, time.Minute)
	// The tooltip opens on hover; the button is re-rendered as answers
	// arrive, so the pointer moves over it again until the reason shows.
	require.Eventually(t, func() bool {
		viewer.step("hover Start", 20*time.Second, mouseOver(`[data-action=start]`))
		var shown bool
		viewer.eval(`document.body.innerText.includes('You may not update virtualmachines/start')`, &shown)
		return shown
	}, 30*time.Second, 500*time.Millisecond, "the disabled Start never said it is the permission")
	viewer.screenshot("vm-details-start-disabled")

	code, body := viewer.fetchAs(http.MethodPut, fmt.Sprintf("/apis/subresources.kubevirt.io/v1/namespaces/%s/virtualmachines/%s/start", ns, browserVM))
	require.Equal(t, http.StatusForbidden, code, "a forced start is refused: %s", body)
	require.Contains(t, body, "system:serviceaccount:"+ns+":viewer")
}

// startAndReadSerialConsole opens the serial console tab of the stopped
// VM, starts it from the page and reads the guest's boot in the terminal,
// then types a command and reads its answer.
func startAndReadSerialConsole(b *browser, ns string) {
	b.t.Helper()
	b.route(fmt.Sprintf("#/vms/%s/%s/console", ns, browserVM))
	b.waitJS("Start enabled for the admin", enabledJS(`[data-action=start]`), time.Minute)
	b.click(`[data-action=start]`)
	b.waitJS("the serial console connects", `!!document.querySelector('[data-console-state=connected]')`, 4*time.Minute)
	terminal := `(document.querySelector('[data-testid=serial-console] .xterm-rows')?.textContent ?? '')`
	b.waitJS("the boot marker in the terminal", terminal+`.includes('`+guestReady+`')`, 2*time.Minute)
	b.step("type into the terminal", 30*time.Second,
		chromedp.Click(`[data-testid=serial-console] .xterm-screen`, chromedp.ByQuery),
		// Text arrives as the keyboard's input events do; Enter as a key.
		chromedp.ActionFunc(func(ctx context.Context) error {
			return input.InsertText("echo VIRTFLOW-TYPED-$((6*7))").Do(ctx)
		}),
		chromedp.KeyEvent(kb.Enter))
	b.waitJS("the guest answers what was typed", terminal+`.includes('VIRTFLOW-TYPED-42')`, time.Minute)
	b.screenshot("vm-serial-console")
}

// seeVNCFrame opens the VNC tab and waits for noVNC's canvas to hold
// pixels that are not the black background.
func seeVNCFrame(b *browser, ns string) {
	b.t.Helper()
	b.route(fmt.Sprintf("#/vms/%s/%s/vnc", ns, browserVM))
	b.waitJS("VNC connects", `!!document.querySelector('[data-vnc-state=connected]')`, time.Minute)
	lit := `(() => {
  const c = document.querySelector('[data-testid=vnc-console] canvas');
  if (!c || !c.width || !c.height) return 0;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] > 96) n++;
  return n;
})()`
	b.waitJS("the VNC canvas draws the guest's screen", lit+` > 200`, time.Minute)
	var n int
	b.eval(lit, &n)
	b.t.Logf("VNC canvas: %d lit pixels", n)
	b.screenshot("vm-vnc")
}

// enabledJS is true once the button selector names is there and enabled:
// PatternFly marks a disabled one that keeps its tooltip aria-disabled,
// and an enabled one not at all.
func enabledJS(selector string) string {
	return fmt.Sprintf(`(() => { const b = document.querySelector(%q); return !!b && !b.disabled && b.getAttribute('aria-disabled') !== 'true'; })()`, selector)
}

// mouseOver moves the mouse over an element, which opens its tooltip.
func mouseOver(selector string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var pos []float64
		js := fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, selector)
		if err := chromedp.Evaluate(js, &pos).Do(ctx); err != nil {
			return err
		}
		// From outside first, so the element sees the pointer enter.
		if err := chromedp.MouseEvent("mouseMoved", 1, 1).Do(ctx); err != nil {
			return err
		}
		return chromedp.MouseEvent("mouseMoved", pos[0], pos[1]).Do(ctx)
	})
}

// TestConsoleShowsImportProgressAndCancelsAnImport watches a DataVolume's
// import on the Disks page until its progress bar reaches 100 %, and
// cancels a second, slower import from the Operations page.
func TestConsoleShowsImportProgressAndCancelsAnImport(t *testing.T) {
	n := onNode(t)
	s := n.space(t)
	dir := t.TempDir()
	randomImage(t, dir, 48<<20)
	srv := serveImages(t, dir)
	srv.rate.Store(6 << 20)
	admin := adminBrowser(t, n, s.ns)
	admin.open("#/disks")
	admin.waitJS("the Disks page", `document.body.innerText.includes('DataVolumes')`, time.Minute)

	s.create(s.importDV("browser-import", srv.url+"/big.raw", "64Mi", true))
	t.Cleanup(func() { s.deleteDV("browser-import") })
	bar := fmt.Sprintf(`[data-datavolume="%s/browser-import"] [data-progress]`, s.ns)
	var seen []float64
	shot := false
	require.Eventually(t, func() bool {
		v, err := strconv.ParseFloat(admin.attr(bar, "data-progress"), 64)
		if err != nil {
			return false
		}
		if len(seen) == 0 || seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
		if v > 0 && v < 100 && !shot {
			shot = true
			admin.screenshot("disks-importing")
		}
		return v == 100
	}, 3*time.Minute, 200*time.Millisecond, "the progress bar never reached 100 (saw %v)", seen)
	t.Logf("progress bar values: %v", seen)
	require.True(t, anyBetween(seen, 0, 100), "the bar moved through the import, not only to its end: %v", seen)
	admin.waitJS("the phase is Succeeded", fmt.Sprintf(`document.querySelector('[data-datavolume="%s/browser-import"]')?.innerText.includes('Succeeded')`, s.ns), time.Minute)
	admin.screenshot("disks-imported")

	cancelImportFromOperations(t, n, s, admin, srv)
}

// cancelImportFromOperations starts a slow import, finds its workflow on
// the Operations page and cancels it there: the workflow ends CANCELED
// and the DataVolume says so.
func cancelImportFromOperations(t *testing.T, n *upRun, s *space, b *browser, srv *imageServer) {
	t.Helper()
	srv.rate.Store(512 << 10)
	s.create(s.importDV("browser-cancel", srv.url+"/big.raw", "64Mi", true))
	t.Cleanup(func() { s.deleteDV("browser-cancel") })
	require.Eventually(t, func() bool { return progressOf(s.getDV("browser-cancel")) > 0 }, 2*time.Minute, 200*time.Millisecond, "the slow import never started")
	id := cdic.ImportWorkflowID(string(s.getDV("browser-cancel").UID))

	b.route("#/operations")
	row := fmt.Sprintf(`[data-operation=%q]`, id)
	b.waitJS("the import is listed and may be cancelled", enabledJS(row+" [data-action=cancel]"), time.Minute)
	b.screenshot("operations-running")
	b.click(row + " [data-action=cancel]")
	b.waitJS("the operation shows Canceled", fmt.Sprintf(`!!document.querySelector('%s [data-status="Canceled"]')`, row), time.Minute)
	b.screenshot("operations-cancelled")

	desc, err := n.tc.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, desc.WorkflowExecutionInfo.Status)
	require.Eventually(t, func() bool {
		dv := s.getDV("browser-cancel")
		for _, c := range dv.Status.Conditions {
			if c.Type == "Running" && c.Message == "Import cancelled" {
				return dv.Status.Phase == "Failed"
			}
		}
		return false
	}, time.Minute, 200*time.Millisecond, "the DataVolume does not say its import was cancelled")
}

func anyBetween(vs []float64, lo, hi float64) bool {
	for _, v := range vs {
		if v > lo && v < hi {
			return true
		}
	}
	return false
}
