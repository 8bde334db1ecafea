// Package templateprocess processes template.openshift.io/v1 Templates the
// way `oc process --local` does (library-go's templateprocessing and its
// expression generator): parameter values from the template, the user and
// the generator, ${NAME} and ${{NAME}} substitution, namespace stripping,
// template labels, and the v1 List oc prints. It is pure logic: no clients,
// no files, and randomness comes from the caller, so a CLI, a Tekton step
// and a web console get the same objects and the same error texts as oc.
//
// Typical use:
//
//	values, err := templateprocess.ParseParameters([]string{"NAME=vm1"})
//	...
//	processed, err := templateprocess.Process(tpl, templateprocess.Options{
//		Values: values,
//		Random: rand.NewSource(time.Now().UnixNano()),
//	})
//	...
//	out, err := templateprocess.RenderYAML(processed.Objects)
package templateprocess
