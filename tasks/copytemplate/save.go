package copytemplate

import (
	"context"

	templatev1 "github.com/openshift/api/template/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// setCopyMetadata gives tpl the copy's metadata: only its labels, marked
// as a VM template so that the console lists it, and annotations, in the
// target namespace, named as asked or generated from the source's name.
func setCopyMetadata(tpl *templatev1.Template, r request) {
	if tpl.Labels == nil {
		tpl.Labels = map[string]string{}
	}
	tpl.Labels[templateTypeLabel] = templateTypeVM
	meta := metav1.ObjectMeta{Namespace: r.target.Namespace, Labels: tpl.Labels, Annotations: tpl.Annotations}
	if r.target.Name == "" {
		meta.GenerateName = r.source.Name
	} else {
		meta.Name = r.target.Name
	}
	tpl.ObjectMeta = meta
}

// save creates the copy, or with allowReplace replaces a template of the
// same name. Without allowReplace an existing template is upstream's
// "already exists" error, even one an earlier try of the same run created:
// nothing tells the two apart, and upstream reports an identical template
// as existing.
func save(ctx context.Context, env stepenv.Env, tpl *templatev1.Template, allowReplace bool) (*templatev1.Template, error) {
	if allowReplace && tpl.Name != "" {
		existing := &templatev1.Template{}
		if err := env.Client.Get(ctx, crclient.ObjectKeyFromObject(tpl), existing); err == nil {
			tpl.ResourceVersion = existing.ResourceVersion
			if err := env.Client.Update(ctx, tpl); err != nil {
				return nil, err
			}
			env.Logf("Template %s/%s replaced", tpl.Namespace, tpl.Name)
			return tpl, nil
		}
	}
	if err := env.Client.Create(ctx, tpl); err != nil {
		return nil, err
	}
	env.Logf("Template %s/%s created", tpl.Namespace, tpl.Name)
	return tpl, nil
}
