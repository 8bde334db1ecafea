package virtadmission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// validateAccessCredentials wants each credential to be of one type, with
// one source and one way into the guest; a cloud-init way needs that
// cloud-init volume.
func validateAccessCredentials(f *field.Path, spec *kubevirtv1.VirtualMachineInstanceSpec) []metav1.StatusCause {
	p := f.Child("accessCredentials")
	var noCloud, configDrive bool
	for _, v := range spec.Volumes {
		noCloud = noCloud || v.CloudInitNoCloud != nil
		configDrive = configDrive || v.CloudInitConfigDrive != nil
	}
	var causes []metav1.StatusCause
	for i, cred := range spec.AccessCredentials {
		types := 0
		if cred.SSHPublicKey != nil {
			types++
			causes = append(causes, validateSSHCredential(p.Index(i), cred.SSHPublicKey, noCloud, configDrive)...)
		}
		if cred.UserPassword != nil {
			types++
			causes = append(causes, validatePasswordCredential(p.Index(i), cred.UserPassword)...)
		}
		if types != 1 {
			causes = append(causes, cause(p.Index(i), "%s must have exactly one access credential type set", p.Index(i)))
		}
	}
	return causes
}

func validateSSHCredential(p *field.Path, key *kubevirtv1.SSHPublicKeyAccessCredential, noCloud, configDrive bool) []metav1.StatusCause {
	var causes []metav1.StatusCause
	method := p.Child("sshPublicKey", "propagationMethod")
	pm := key.PropagationMethod
	methods := 0
	if pm.NoCloud != nil {
		methods++
		if !noCloud {
			causes = append(causes, cause(method, "%s requires a noCloud volume to exist when the noCloud propagationMethod is in use.", p))
		}
	}
	if pm.ConfigDrive != nil {
		methods++
		if !configDrive {
			causes = append(causes, cause(method, "%s requires a configDrive volume to exist when the configDrive propagationMethod is in use.", p))
		}
	}
	if pm.QemuGuestAgent != nil {
		if len(pm.QemuGuestAgent.Users) == 0 {
			causes = append(causes, cause(method.Child("qemuGuestAgent", "users"), "%s requires at least one user to be present in the users list", p))
		}
		methods++
	}
	sources := 0
	if key.Source.Secret != nil {
		sources++
	}
	return append(causes, credentialCounts(p, p.Child("sshPublicKey"), sources, methods)...)
}

func validatePasswordCredential(p *field.Path, pw *kubevirtv1.UserPasswordAccessCredential) []metav1.StatusCause {
	sources, methods := 0, 0
	if pw.Source.Secret != nil {
		sources++
	}
	if pw.PropagationMethod.QemuGuestAgent != nil {
		methods++
	}
	return credentialCounts(p, p.Child("userPassword"), sources, methods)
}

func credentialCounts(p, typed *field.Path, sources, methods int) []metav1.StatusCause {
	var causes []metav1.StatusCause
	if sources != 1 {
		causes = append(causes, cause(typed.Child("source"), "%s must have exactly one source set", p))
	}
	if methods != 1 {
		causes = append(causes, cause(typed.Child("propagationMethod"), "%s must have exactly one propagationMethod set", p))
	}
	return causes
}
