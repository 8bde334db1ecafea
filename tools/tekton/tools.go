//go:build tools

// Package tools pins Tekton Pipelines, which runs the tasks' pipelines on
// the embedded node: the controller, webhook and events controller, and the
// programs the controller places in every TaskRun's pod (entrypoint, nop,
// workingdirinit, sidecarlogresults). The resolvers are not pinned: they
// fetch tasks from git, hubs and registries, which the node cannot reach.
// They are built once into the cache (CGO_ENABLED=0).
package tools

import (
	_ "github.com/tektoncd/pipeline/cmd/controller"
	_ "github.com/tektoncd/pipeline/cmd/entrypoint"
	_ "github.com/tektoncd/pipeline/cmd/events"
	_ "github.com/tektoncd/pipeline/cmd/nop"
	_ "github.com/tektoncd/pipeline/cmd/sidecarlogresults"
	_ "github.com/tektoncd/pipeline/cmd/webhook"
	_ "github.com/tektoncd/pipeline/cmd/workingdirinit"
)
