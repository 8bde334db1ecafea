package customrun

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Durable task runs, by task (a pipeline counts as its name).
var (
	startedRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "virtflow_durable_task_runs_started_total",
		Help: "CustomRuns of durable tasks whose workflow was startedRuns",
	}, []string{"task"})
	finishedRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "virtflow_durable_task_runs_finished_total",
		Help: "CustomRuns of durable tasks that finished, by the reason of their Succeeded condition",
	}, []string{"task", "reason"})
	duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "virtflow_durable_task_run_duration_seconds",
		Help:    "How long durable task runs took, from start to completion",
		Buckets: prometheus.ExponentialBuckets(1, 2, 14),
	}, []string{"task"})
)

func init() {
	metrics.Registry.MustRegister(startedRuns, finishedRuns, duration)
}
