package commontemplates

// Label keys and prefixes of common templates. The console and SSP select
// templates by them, so they are spelled exactly as upstream spells them.
const (
	// LabelOSPrefix prefixes one label per osinfo short ID the template
	// suits, e.g. os.template.kubevirt.io/rhel9.4: "true".
	LabelOSPrefix = "os.template.kubevirt.io/"
	// LabelWorkloadPrefix prefixes the workload label (server, desktop,
	// highperformance).
	LabelWorkloadPrefix = "workload.template.kubevirt.io/"
	// LabelFlavorPrefix prefixes the flavor label (tiny to large).
	LabelFlavorPrefix = "flavor.template.kubevirt.io/"
	// LabelType marks common templates; its value is TypeBase.
	LabelType = "template.kubevirt.io/type"
	// TypeBase is the LabelType value of every common template.
	TypeBase = "base"
	// LabelVersion carries the common-templates release a template came
	// from; SSP deprecates installed templates of older releases.
	LabelVersion = "template.kubevirt.io/version"
	// LabelDefaultOSVariant marks the template the console preselects for
	// an OS.
	LabelDefaultOSVariant = "template.kubevirt.io/default-os-variant"
	// LabelArchitecture names the CPU architecture a template is built for;
	// SSP treats a template without it as amd64.
	LabelArchitecture = "template.kubevirt.io/architecture"
	// LabelDeprecated is both a label and an annotation: upstream ships
	// deprecated OS families with the annotation, and SSP sets both on
	// installed templates a newer release replaced.
	LabelDeprecated = "template.kubevirt.io/deprecated"
)

// Labels SSP puts on every object it reconciles, with the values it uses
// for common templates.
const (
	// LabelAppName names the operand that owns the object.
	LabelAppName = "app.kubernetes.io/name"
	// LabelAppComponent names the component the object belongs to.
	LabelAppComponent = "app.kubernetes.io/component"
	// LabelAppManagedBy names the operator reconciling the object.
	LabelAppManagedBy = "app.kubernetes.io/managed-by"
	// LabelAppPartOf is copied from the SSP resource.
	LabelAppPartOf = "app.kubernetes.io/part-of"
	// LabelAppVersion is copied from the SSP resource.
	LabelAppVersion = "app.kubernetes.io/version"

	// AppName is SSP's operand name for common templates.
	AppName = "common-templates"
	// AppComponent is SSP's component of common templates.
	AppComponent = "templating"
	// AppManagedBy is SSP's manager name.
	AppManagedBy = "ssp-operator"
)

// Annotation keys of common templates.
const (
	// AnnotationDisplayName is the title the console shows.
	AnnotationDisplayName = "openshift.io/display-name"
	// AnnotationDescription is the template's one-paragraph description.
	AnnotationDescription = "description"
	// AnnotationTags lists catalog tags; "hidden" keeps the template out of the generic catalog.
	AnnotationTags = "tags"
	// AnnotationIconClass names the OS logo.
	AnnotationIconClass = "iconClass"
	// AnnotationProviderDisplay names who publishes the template.
	AnnotationProviderDisplay = "openshift.io/provider-display-name"
	// AnnotationDocumentationURL points at the template's documentation.
	AnnotationDocumentationURL = "openshift.io/documentation-url"
	// AnnotationSupportURL points at where to report problems.
	AnnotationSupportURL = "openshift.io/support-url"
	// AnnotationBindable is "false": templates are not service-catalog bindable.
	AnnotationBindable = "template.openshift.io/bindable"
	// AnnotationStructureVersion is the template format version, not the
	// release: upstream keeps it at v1alpha1.
	AnnotationStructureVersion = "template.kubevirt.io/version"
	// AnnotationDefaultDisk names the disk the console treats as the root disk.
	AnnotationDefaultDisk = "defaults.template.kubevirt.io/disk"
	// AnnotationDefaultNetwork names the network the console treats as the default one.
	AnnotationDefaultNetwork = "defaults.template.kubevirt.io/network"
	// AnnotationEditable lists, a path a line, what the console lets users edit.
	AnnotationEditable = "template.kubevirt.io/editable"
	// AnnotationContainerDisks lists container disk images of the OS, a line each.
	AnnotationContainerDisks = "template.kubevirt.io/containerdisks"
	// AnnotationImages lists download URLs of the OS's cloud images, a line each.
	AnnotationImages = "template.kubevirt.io/images"
	// AnnotationOSNamePrefix prefixes one annotation per OS label giving
	// the OS's human name.
	AnnotationOSNamePrefix = "name.os.template.kubevirt.io/"
	// AnnotationProvider and its siblings are what OpenShift
	// Virtualization's own builds add; upstream leaves them out.
	AnnotationProvider = "template.kubevirt.io/provider"
	// AnnotationProviderSupportLevel is the provider's support level.
	AnnotationProviderSupportLevel = "template.kubevirt.io/provider-support-level"
	// AnnotationProviderURL is the provider's web site.
	AnnotationProviderURL = "template.kubevirt.io/provider-url"
)

// Keys inside the VirtualMachine object of a template.
const (
	// AnnotationValidations holds the JSON validation rules the template
	// validator enforces on VMs created from the template.
	AnnotationValidations = "vm.kubevirt.io/validations"
	// LabelVMTemplate on the VM names the template it came from.
	LabelVMTemplate = "vm.kubevirt.io/template"
	// LabelVMTemplateVersion on the VM is the release of that template.
	LabelVMTemplateVersion = "vm.kubevirt.io/template.version"
	// LabelVMTemplateRevision on the VM is the revision of that release.
	LabelVMTemplateRevision = "vm.kubevirt.io/template.revision"
	// AnnotationVMOS on the VM template names the OS family.
	AnnotationVMOS = "vm.kubevirt.io/os"
	// AnnotationVMWorkload on the VM template names the workload.
	AnnotationVMWorkload = "vm.kubevirt.io/workload"
	// AnnotationVMFlavor on the VM template names the flavor.
	AnnotationVMFlavor = "vm.kubevirt.io/flavor"
)

// Parameter names of common templates.
const (
	// ParamName is the VM name, generated when not given.
	ParamName = "NAME"
	// ParamDataSourceName names the DataSource the root disk clones.
	ParamDataSourceName = "DATA_SOURCE_NAME"
	// ParamDataSourceNamespace is the namespace of that DataSource.
	ParamDataSourceNamespace = "DATA_SOURCE_NAMESPACE"
	// ParamCloudUserPassword is the generated cloud-init password of Linux guests.
	ParamCloudUserPassword = "CLOUD_USER_PASSWORD"
)
