package virtadmission

import (
	"encoding/base64"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kubevirtv1 "kubevirt.io/api/core/v1"
)

// Inline cloud-init data is capped so that editing a VM does not ship a
// large object to every node; larger data belongs in a Secret.
const (
	cloudInitUserMaxLen    = 2048
	cloudInitNetworkMaxLen = 2048
)

// cloudInitData is one kind of data (user or network) of a cloud-init
// volume, from whichever of its three sources are set.
type cloudInitData struct {
	secret          *corev1.LocalObjectReference
	inline, encoded string
}

// measure counts the data's sources and its length, and reports base64
// that does not decode at p.
func (d cloudInitData) measure(p *field.Path, kind, encodedField string) (sources, length int, causes []metav1.StatusCause) {
	if d.secret != nil && d.secret.Name != "" {
		sources++
	}
	if d.encoded != "" {
		sources++
		decoded, err := base64.StdEncoding.DecodeString(d.encoded)
		if err != nil {
			ep := p.Child(encodedField)
			causes = append(causes, cause(ep, "%s.%s.%s is not a valid base64 value.", ep, kind, encodedField))
		}
		length = len(decoded)
	}
	if d.inline != "" {
		sources++
		length = len(d.inline)
	}
	return sources, length, causes
}

// validateCloudInit checks a cloud-init volume's user and network data:
// one source each, within the inline limits, and at least one of them.
func validateCloudInit(p *field.Path, v kubevirtv1.Volume) []metav1.StatusCause {
	var kind string
	var user, network cloudInitData
	switch {
	case v.CloudInitNoCloud != nil:
		s := v.CloudInitNoCloud
		kind = "cloudInitNoCloud"
		user = cloudInitData{s.UserDataSecretRef, s.UserData, s.UserDataBase64}
		network = cloudInitData{s.NetworkDataSecretRef, s.NetworkData, s.NetworkDataBase64}
	case v.CloudInitConfigDrive != nil:
		s := v.CloudInitConfigDrive
		kind = "cloudInitConfigDrive"
		user = cloudInitData{s.UserDataSecretRef, s.UserData, s.UserDataBase64}
		network = cloudInitData{s.NetworkDataSecretRef, s.NetworkData, s.NetworkDataBase64}
	default:
		return nil
	}
	kp := p.Child(kind)
	userSources, userLen, causes := user.measure(kp, kind, "userDataBase64")
	if userSources > 1 {
		causes = append(causes, cause(kp, "%s must have only one userdatasource set.", kp))
	}
	if userLen > cloudInitUserMaxLen {
		causes = append(causes, cause(kp, "%s userdata exceeds %d byte limit. Should use UserDataSecretRef for larger data.", kp, cloudInitUserMaxLen))
	}
	netSources, netLen, netCauses := network.measure(kp, kind, "networkDataBase64")
	causes = append(causes, netCauses...)
	if netSources > 1 {
		causes = append(causes, cause(kp, "%s must have only one networkdata source set.", kp))
	}
	if netLen > cloudInitNetworkMaxLen {
		causes = append(causes, cause(kp, "%s networkdata exceeds %d byte limit. Should use NetworkDataSecretRef for larger data.", kp, cloudInitNetworkMaxLen))
	}
	if userSources == 0 && netSources == 0 {
		causes = append(causes, cause(kp, "%s must have at least one userdatasource or one networkdatasource set.", kp))
	}
	return causes
}
