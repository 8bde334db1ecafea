// Package generatesshkeys is the generate-ssh-keys task: it generates an
// SSH key pair, adds the public key to a (new or existing) secret and puts
// the private key in a new secret in execute-in-vm's connection secret
// format. The key is made in process, with ssh-keygen's options, defaults
// and file formats.
package generatesshkeys

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// Task is generate-ssh-keys. It is not idempotent: every run makes a new
// key, and a rerun after the private key secret was created fails on the
// existing secret (named) or makes another one (generated name).
var Task = stepenv.Task{Name: "generate-ssh-keys", Run: run}

func run(ctx context.Context, env stepenv.Env, params stepenv.Params) error {
	o, err := parseOptions(params, env.Namespace)
	if err != nil {
		return err
	}
	keys, err := generate(env, o)
	if err != nil {
		return err
	}
	if err := checkPrivateKeySecretAbsent(ctx, env, o); err != nil {
		return err
	}
	public, err := getPublicKeySecret(ctx, env, o)
	if err != nil {
		return err
	}
	appended := public != nil
	if appended {
		err = appendPublicKey(ctx, env, public, keys.publicKey)
	} else {
		public, err = createPublicKeySecret(ctx, env, o, keys.publicKey)
	}
	if err != nil {
		return err
	}
	private, err := createPrivateKeySecret(ctx, env, o, keys.privateKey)
	if err != nil {
		if !appended {
			deleteSecret(context.WithoutCancel(ctx), env, public)
		}
		return err
	}
	if err := writeResults(env, public, private); err != nil {
		if !appended {
			deleteSecret(context.WithoutCancel(ctx), env, public)
		}
		deleteSecret(context.WithoutCancel(ctx), env, private)
		return err
	}
	return nil
}

// generate makes the key pair the options ask for.
func generate(env stepenv.Env, o *options) (*keyPair, error) {
	user := "default"
	if u := o.connection[connectionUser]; u != "" {
		user = u
	}
	spec, err := parseKeygenOptions(o.keygenOptions, user)
	if err != nil {
		return nil, err
	}
	env.Alive(fmt.Sprintf("generating a %s %d key", spec.keyType, spec.bits))
	// The log says what ssh-keygen says, which users of the task look for.
	env.Logf("Generating public/private %s key pair.", spec.keyType)
	keys, err := generateKeyPair(spec)
	if err != nil {
		return nil, err
	}
	env.Logf("The key fingerprint is:\n%s %s", keys.fingerprint, spec.comment)
	return keys, nil
}

func writeResults(env stepenv.Env, public, private *corev1.Secret) error {
	for _, r := range []struct{ name, value string }{
		{ResultPublicKeySecretName, public.Name},
		{ResultPublicKeySecretNamespace, public.Namespace},
		{ResultPrivateKeySecretName, private.Name},
		{ResultPrivateKeySecretNamespace, private.Namespace},
	} {
		if err := env.Results.Write(r.name, r.value); err != nil {
			return err
		}
	}
	return nil
}
