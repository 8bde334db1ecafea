package generatesshkeys

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/tasktest"
)

// fast keeps the tests' keys quick to make.
const fast = "-t ed25519"

type testEnv struct {
	stepenv.Env
	client crclient.Client
	log    *bytes.Buffer
}

func newTestEnv(t *testing.T, funcs *interceptor.Funcs, objs ...crclient.Object) *testEnv {
	t.Helper()
	b := tasktest.Builder(t).WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	c := b.Build()
	log := &bytes.Buffer{}
	return &testEnv{client: c, log: log, Env: stepenv.Env{Client: c, Namespace: "active", Log: log, Results: &stepenv.Results{Values: map[string]string{}}}}
}

func (te *testEnv) run(values map[string]string, connection ...string) error {
	if _, ok := values[ParamAdditionalSSHKeygenOptions]; !ok {
		values[ParamAdditionalSSHKeygenOptions] = fast
	}
	params := stepenv.Params{Strings: values, Arrays: map[string][]string{ParamPrivateKeyConnectionOptions: connection}}
	return Task.Run(context.Background(), te.Env, params)
}

func (te *testEnv) secret(t *testing.T, namespace, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	require.NoError(t, te.client.Get(context.Background(), crclient.ObjectKey{Namespace: namespace, Name: name}, s))
	return s
}

func (te *testEnv) secrets(t *testing.T) []corev1.Secret {
	t.Helper()
	list := &corev1.SecretList{}
	require.NoError(t, te.client.List(context.Background(), list))
	return list.Items
}

// publicKeys are a public key secret's keys, checked for their names.
func publicKeys(t *testing.T, s *corev1.Secret) []string {
	t.Helper()
	var keys []string
	for id, key := range s.Data {
		if strings.HasPrefix(id, "id-rsa-") && strings.HasSuffix(id, ".pub") && len(id) == len("id-rsa-xxxxx.pub") {
			keys = append(keys, string(key))
		}
	}
	return keys
}

func TestGeneratedNamesWithTheTaskDefaults(t *testing.T) {
	te := newTestEnv(t, nil)
	require.NoError(t, te.run(map[string]string{ParamAdditionalSSHKeygenOptions: ""}))
	r := te.Results.Values
	assert.True(t, strings.HasPrefix(r[ResultPublicKeySecretName], "public-key-"), r[ResultPublicKeySecretName])
	assert.True(t, strings.HasPrefix(r[ResultPrivateKeySecretName], "private-key-"), r[ResultPrivateKeySecretName])
	assert.Equal(t, "active", r[ResultPublicKeySecretNamespace])
	assert.Equal(t, "active", r[ResultPrivateKeySecretNamespace])

	public := te.secret(t, "active", r[ResultPublicKeySecretName])
	assert.Empty(t, public.Type, "the server makes it Opaque")
	keys := publicKeys(t, public)
	require.Len(t, keys, 1)
	assert.Len(t, public.Data, 1)
	private := te.secret(t, "active", r[ResultPrivateKeySecretName])
	assert.Equal(t, corev1.SecretTypeSSHAuth, private.Type)
	assert.Len(t, private.Data, 1)
	signer, err := ssh.ParsePrivateKey(private.Data["ssh-privatekey"])
	require.NoError(t, err)

	pub, comment, _, _, err := ssh.ParseAuthorizedKey([]byte(keys[0]))
	require.NoError(t, err)
	assert.Equal(t, "default@generated", comment)
	assert.Equal(t, ssh.KeyAlgoRSA, pub.Type())
	assert.Equal(t, signer.PublicKey().Marshal(), pub.Marshal())
	assert.Equal(t, 4096, pub.(ssh.CryptoPublicKey).CryptoPublicKey().(interface{ Size() int }).Size()*8)
	assert.Equal(t, "Generating public/private rsa key pair.\nThe key fingerprint is:\n"+ssh.FingerprintSHA256(pub)+" default@generated\n", te.log.String())
}

// The private key secret is execute-in-vm's connection secret.
func TestPrivateKeySecretCarriesTheConnectionOptions(t *testing.T) {
	te := newTestEnv(t, nil)
	params := map[string]string{
		ParamPublicKeySecretName: "pub", ParamPublicKeySecretNamespace: "keys",
		ParamPrivateKeySecretName: " priv ", ParamPrivateKeySecretNamespace: "conn",
	}
	require.NoError(t, te.run(params, "user:root", "disable-strict-host-key-checking:true", "additional-ssh-options:-p", "8022", "type:ssh"))
	assert.Equal(t, map[string]string{
		ResultPublicKeySecretName: "pub", ResultPublicKeySecretNamespace: "keys",
		ResultPrivateKeySecretName: "priv", ResultPrivateKeySecretNamespace: "conn",
	}, te.Results.Values)
	private := te.secret(t, "conn", "priv")
	assert.Equal(t, "root", string(private.Data["user"]))
	assert.Equal(t, "true", string(private.Data["disable-strict-host-key-checking"]))
	assert.Equal(t, "-p 8022", string(private.Data["additional-ssh-options"]))
	assert.Equal(t, "ssh", string(private.Data["type"]))
	assert.Len(t, private.Data, 5)

	keys := publicKeys(t, te.secret(t, "keys", "pub"))
	require.Len(t, keys, 1)
	assert.True(t, strings.HasSuffix(keys[0], " root@generated\n"), keys[0])
}

func TestAnExistingPublicKeySecretGetsTheKeyAdded(t *testing.T) {
	existing := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "authorized"},
		Data:       map[string][]byte{"mine.pub": []byte("ssh-ed25519 AAAA mine")},
	}
	te := newTestEnv(t, nil, existing)
	require.NoError(t, te.run(map[string]string{ParamPublicKeySecretName: "authorized"}))
	require.NoError(t, te.run(map[string]string{ParamPublicKeySecretName: "authorized"}))
	public := te.secret(t, "active", "authorized")
	assert.Equal(t, "ssh-ed25519 AAAA mine", string(public.Data["mine.pub"]))
	assert.Len(t, publicKeys(t, public), 2)
	assert.Len(t, te.secrets(t), 3, "the public key secret and two private ones")
}

func TestAnExistingEmptyPublicKeySecretGetsTheKeyAdded(t *testing.T) {
	existing := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "authorized"}}
	te := newTestEnv(t, nil, existing)
	require.NoError(t, te.run(map[string]string{ParamPublicKeySecretName: "authorized"}))
	assert.Len(t, publicKeys(t, te.secret(t, "active", "authorized")), 1)
}

func TestAnExistingPrivateKeySecretIsNeverOverwritten(t *testing.T) {
	existing := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "priv"}}
	te := newTestEnv(t, nil, existing)
	err := te.run(map[string]string{ParamPrivateKeySecretName: "priv"})
	assert.EqualError(t, err, "priv secret already exists")
	assert.Len(t, te.secrets(t), 1, "no public key secret either")
	assert.Empty(t, te.Results.Values)
}

func TestReadErrors(t *testing.T) {
	denied := apierrors.NewForbidden(corev1.Resource("secrets"), "x", errors.New("no"))
	funcs := &interceptor.Funcs{Get: func(context.Context, crclient.WithWatch, crclient.ObjectKey, crclient.Object, ...crclient.GetOption) error {
		return denied
	}}
	err := newTestEnv(t, funcs).run(map[string]string{ParamPrivateKeySecretName: "priv"})
	assert.EqualError(t, err, "error occurred while checking that priv secret should not exist: "+denied.Error())

	err = newTestEnv(t, funcs).run(map[string]string{ParamPublicKeySecretName: "pub"})
	assert.Equal(t, denied, err)
}

// A public key secret the task created goes when the private one cannot
// be created; one it added to stays.
func TestFailedPrivateKeySecretUndoesANewPublicKeySecret(t *testing.T) {
	refused := errors.New("quota exceeded")
	funcs := &interceptor.Funcs{Create: func(ctx context.Context, c crclient.WithWatch, obj crclient.Object, opts ...crclient.CreateOption) error {
		if obj.(*corev1.Secret).Type == corev1.SecretTypeSSHAuth {
			return refused
		}
		return c.Create(ctx, obj, opts...)
	}}
	te := newTestEnv(t, funcs)
	assert.Equal(t, refused, te.run(map[string]string{}))
	assert.Empty(t, te.secrets(t))

	existing := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "active", Name: "authorized"}}
	te = newTestEnv(t, funcs, existing)
	assert.Equal(t, refused, te.run(map[string]string{ParamPublicKeySecretName: "authorized"}))
	assert.Len(t, te.secrets(t), 1)
}

func TestUnwritableResultsUndoTheSecrets(t *testing.T) {
	te := newTestEnv(t, nil)
	te.Results = &stepenv.Results{Dir: t.TempDir() + "/missing"}
	err := te.run(map[string]string{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing result publicKeySecretName")
	assert.Empty(t, te.secrets(t))
}

func TestBadParametersFailWithUpstreamMessages(t *testing.T) {
	cases := map[string]struct {
		params     map[string]string
		connection []string
		want       string
	}{
		"public name":       {map[string]string{ParamPublicKeySecretName: "Pub"}, nil, "invalid public-key-secret-name value: a lowercase RFC 1123 subdomain"},
		"public namespace":  {map[string]string{ParamPublicKeySecretNamespace: "a_b"}, nil, "invalid public-key-secret-namespace value: "},
		"private name":      {map[string]string{ParamPrivateKeySecretName: "-x"}, nil, "invalid private-key-secret-name value: "},
		"private namespace": {map[string]string{ParamPrivateKeySecretNamespace: "x."}, nil, "invalid private-key-secret-namespace value: "},
		"first option":      {map[string]string{}, []string{"root"}, `invalid private-key connection options: no key found before "root"; pair should be in "KEY:VAL" format`},
		"empty key":         {map[string]string{}, []string{"user:root", " :x"}, `invalid private-key connection options: no key found before ":x"; pair should be in "KEY:VAL" format`},
		"keygen option":     {map[string]string{ParamAdditionalSSHKeygenOptions: "-t dsa"}, nil, "key type dsa is not supported"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			te := newTestEnv(t, nil)
			err := te.run(tc.params, tc.connection...)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
			assert.Empty(t, te.secrets(t))
		})
	}
}

func TestConnectionOptions(t *testing.T) {
	got, err := parseConnectionOptions([]string{"", "  host-public-key:ssh-rsa", "AAAA", "additional-ssh-options:-o", "A=b", "user:"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"host-public-key": "ssh-rsa AAAA", "additional-ssh-options": "-o A=b", "user": ""}, got)

	// A continuation with a colon starts an entry of its own, as upstream.
	got, err = parseConnectionOptions([]string{"additional-ssh-options:-o", "A=b:c"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"additional-ssh-options": "-o", "A=b": "c"}, got)
}
