package apply

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeSkipsCommentOnlyDocumentsAndNamesTheFileInErrors(t *testing.T) {
	objs, err := Decode("x.yaml", []byte("# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n"))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	require.Equal(t, "ConfigMap", objs[0].GetKind())
	require.Equal(t, "b", objs[1].GetName())
	_, err = Decode("bad.yaml", []byte("kind: [\n"))
	require.ErrorContains(t, err, "bad.yaml")
}
