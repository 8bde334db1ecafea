package v1beta1

// PermittedHostDevices lists host devices VMs may claim. The operator ships a
// few entries of its own; the Disabled flags exist so an admin can switch
// those off, since deleting them would only see them re-added.
// +k8s:openapi-gen=true
type PermittedHostDevices struct {
	// PciHostDevices are passed through by vendor:product ID.
	// +listType=map
	// +listMapKey=pciDeviceSelector
	// +optional
	PciHostDevices []PciHostDevice `json:"pciHostDevices,omitempty"`

	// USBHostDevices are passed through by vendor/product selectors.
	// +listType=map
	// +listMapKey=resourceName
	// +optional
	USBHostDevices []USBHostDevice `json:"usbHostDevices,omitempty"`

	// MediatedDevices are exposed by mdev type name.
	// +listType=map
	// +listMapKey=mdevNameSelector
	// +optional
	MediatedDevices []MediatedHostDevice `json:"mediatedDevices,omitempty"`
}

// PciHostDevice permits one PCI device model.
// +k8s:openapi-gen=true
type PciHostDevice struct {
	// PCIDeviceSelector is the vendor_id:product_id pair that identifies the
	// device on a host.
	PCIDeviceSelector string `json:"pciDeviceSelector"`
	// ResourceName is the extended resource VMs request.
	ResourceName string `json:"resourceName"`
	// ExternalResourceProvider leaves advertising to an external device
	// plugin instead of KubeVirt's own.
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// Disabled switches off an operator-provided entry without deleting it.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// USBSelector matches a USB device by IDs.
// +k8s:openapi-gen=true
type USBSelector struct {
	// Vendor is the USB vendor ID.
	Vendor string `json:"vendor"`
	// Product is the USB product ID.
	Product string `json:"product"`
}

// USBHostDevice permits a set of USB devices under one resource name.
// +k8s:openapi-gen=true
type USBHostDevice struct {
	// ResourceName is the extended resource VMs request, e.g.
	// kubevirt.io/storage.
	ResourceName string `json:"resourceName"`
	// Selectors match the devices grouped under ResourceName.
	// +listType=atomic
	// +optional
	Selectors []USBSelector `json:"selectors,omitempty"`
	// ExternalResourceProvider leaves allocation to an external plugin.
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// Disabled switches off an operator-provided entry without deleting it.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// MediatedHostDevice permits one mediated device type.
// +k8s:openapi-gen=true
type MediatedHostDevice struct {
	// MDEVNameSelector is the mdev type name as reported by the host.
	MDEVNameSelector string `json:"mdevNameSelector"`
	// ResourceName is the extended resource VMs request.
	ResourceName string `json:"resourceName"`
	// ExternalResourceProvider leaves advertising to an external plugin.
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// Disabled switches off an operator-provided entry without deleting it.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// MediatedDevicesConfiguration lists the mdev types to carve out of GPUs.
// Both spellings of the type list are accepted because older releases used
// the plural one.
// +k8s:openapi-gen=true
// +kubebuilder:validation:XValidation:rule="(has(self.mediatedDeviceTypes) && size(self.mediatedDeviceTypes)>0) || (has(self.mediatedDevicesTypes) && size(self.mediatedDevicesTypes)>0)",message="for mediatedDevicesConfiguration a non-empty mediatedDeviceTypes or mediatedDevicesTypes(deprecated) is required"
type MediatedDevicesConfiguration struct {
	// MediatedDeviceTypes applies to every node without a node-specific
	// entry. The JSON name has no omitempty, matching upstream output.
	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes"`

	// Deprecated: MediatedDevicesTypes is the old spelling of
	// MediatedDeviceTypes.
	// +listType=atomic
	// +optional
	MediatedDevicesTypes []string `json:"mediatedDevicesTypes,omitempty"`

	// NodeMediatedDeviceTypes overrides the types for nodes matching a
	// selector, for clusters with mixed GPU models.
	// +listType=atomic
	// +optional
	NodeMediatedDeviceTypes []NodeMediatedDeviceTypesConfig `json:"nodeMediatedDeviceTypes,omitempty"`
}

// NodeMediatedDeviceTypesConfig applies an mdev type list to matching nodes.
// +k8s:openapi-gen=true
// +kubebuilder:validation:XValidation:rule="(has(self.mediatedDeviceTypes) && size(self.mediatedDeviceTypes)>0) || (has(self.mediatedDevicesTypes) && size(self.mediatedDevicesTypes)>0)",message="for nodeMediatedDeviceTypes a non-empty mediatedDeviceTypes or mediatedDevicesTypes(deprecated) is required"
type NodeMediatedDeviceTypesConfig struct {
	// NodeSelector picks the nodes this entry applies to.
	NodeSelector map[string]string `json:"nodeSelector"`

	// MediatedDeviceTypes to create on the selected nodes.
	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes"`

	// Deprecated: MediatedDevicesTypes is the old spelling of
	// MediatedDeviceTypes.
	// +listType=atomic
	// +optional
	MediatedDevicesTypes []string `json:"mediatedDevicesTypes"`
}
