// Package cdistatus writes the status of CDI's kinds (DataVolume,
// DataSource, DataImportCron) the way CDI does: once per change, keeping a
// condition's transition and heartbeat times while it stays the same.
package cdistatus

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Condition points into one condition of an object: what identifies its
// state, and its two times. CDI's condition types differ (a DataVolume's
// has its fields inline, the others embed ConditionState), so each kind
// says where they are.
type Condition struct {
	Type, Status, Reason, Message string
	Transition, Heartbeat         *metav1.Time
}

// OfState points into a condition that embeds ConditionState.
func OfState[T ~string](typ T, s *cdiv1.ConditionState) Condition {
	return Condition{Type: string(typ), Status: string(s.Status), Reason: s.Reason, Message: s.Message,
		Transition: &s.LastTransitionTime, Heartbeat: &s.LastHeartbeatTime}
}

// StatesOf points into conditions that embed ConditionState; state says
// where one's type and state are.
func StatesOf[C any](conds []C, state func(*C) (string, *cdiv1.ConditionState)) []Condition {
	out := make([]Condition, len(conds))
	for i := range conds {
		typ, s := state(&conds[i])
		out[i] = OfState(typ, s)
	}
	return out
}

func (c Condition) same(o Condition) bool {
	return c.Type == o.Type && c.Status == o.Status && c.Reason == o.Reason && c.Message == o.Message
}

// Kind says how to write one CDI kind's status.
type Kind[O client.Object] struct {
	// Name is the kind, for errors.
	Name string
	// Conditions points into the object's conditions.
	Conditions func(O) []Condition
	// Subresource is set where the kind's CRD has a status subresource;
	// upstream's DataSource and DataImportCron have none, so their status
	// is written with the object (a merge patch of the status alone, which
	// leaves the spec to whoever else writes it).
	Subresource bool
}

// Write sets obj's status with set, stamps each condition with now unless
// an identical one was there before (then it keeps that one's times), and
// patches the object once when its status changed. It reports whether it
// wrote.
func (k Kind[O]) Write(ctx context.Context, c client.Client, obj O, set func(O)) (bool, error) {
	before := obj.DeepCopyObject().(O)
	set(obj)
	now := metav1.Now()
	prev := k.Conditions(before)
	for _, cur := range k.Conditions(obj) {
		*cur.Transition, *cur.Heartbeat = now, now
		for _, old := range prev {
			if old.same(cur) {
				*cur.Transition, *cur.Heartbeat = *old.Transition, *old.Heartbeat
			}
		}
	}
	if equality.Semantic.DeepEqual(before, obj) {
		return false, nil
	}
	var err error
	if k.Subresource {
		err = c.Status().Patch(ctx, obj, client.MergeFrom(before))
	} else {
		err = c.Patch(ctx, obj, client.MergeFrom(before))
	}
	if err != nil {
		return false, fmt.Errorf("writing status of %s %s/%s: %w", k.Name, obj.GetNamespace(), obj.GetName(), err)
	}
	return true, nil
}
