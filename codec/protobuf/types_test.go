package protobuf_test

import (
	"encoding/json"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// widget is a kind shaped like the example Widget, for round trips and
// benchmarks.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            widgetSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status          widgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type widgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	Color    string       `json:"color,omitempty" protobuf:"bytes,2,opt,name=color"`
	Size     string       `json:"size,omitempty" protobuf:"bytes,3,opt,name=size"`
	Tags     []string     `json:"tags,omitempty" protobuf:"bytes,4,rep,name=tags"`
	Ports    []widgetPort `json:"ports,omitempty" protobuf:"bytes,5,rep,name=ports"`
}

type widgetPort struct {
	Name     string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Port     int32  `json:"port" protobuf:"varint,2,opt,name=port"`
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
}

type widgetStatus struct {
	ReadyReplicas      int32       `json:"readyReplicas,omitempty" protobuf:"varint,1,opt,name=readyReplicas"`
	ObservedGeneration int64       `json:"observedGeneration,omitempty" protobuf:"varint,2,opt,name=observedGeneration"`
	Selector           string      `json:"selector,omitempty" protobuf:"bytes,3,opt,name=selector"`
	Conditions         []condition `json:"conditions,omitempty" protobuf:"bytes,4,rep,name=conditions"`
}

type condition struct {
	Type               string    `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             string    `json:"status" protobuf:"bytes,2,opt,name=status"`
	Reason             string    `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	Message            string    `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

func int32p(v int32) *int32 { return &v }

// sampleWidget is a Widget of about 1.9 KB of JSON, as the benchmarks of
// the design use.
func sampleWidget() *widget {
	ts := meta.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	w := &widget{
		TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "stable.example.com/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "widget-00042", Namespace: "default", UID: "0b6f3f7e-9a53-4c1f-8a4e-3f0c6f0d2a11",
			ResourceVersion: "123456", Generation: 4, CreationTimestamp: ts,
			Labels:      map[string]string{"app": "demo", "tier": "backend", "team": "widgets"},
			Annotations: map[string]string{"example.com/owner": "someone@example.com", "example.com/note": "a widget used for benchmarks"},
			ManagedFields: []meta.ManagedFieldsEntry{{Manager: "kubectl", Operation: meta.ManagedFieldsOperationApply, APIVersion: "stable.example.com/v1",
				Time: &ts, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}},"f:replicas":{},"f:size":{},"f:tags":{}}}`)}}},
		},
		Spec: widgetSpec{Replicas: int32p(3), Color: "blue", Size: "large", Tags: []string{"a", "b", "c", "d"},
			Ports: []widgetPort{{Name: "http", Port: 80, Protocol: "TCP"}, {Name: "https", Port: 443, Protocol: "TCP"}, {Name: "metrics", Port: 9090, Protocol: "TCP"}}},
		Status: widgetStatus{ReadyReplicas: 3, ObservedGeneration: 4, Selector: "app=demo",
			Conditions: []condition{
				{Type: "Ready", Status: "True", Reason: "AllReplicasReady", Message: "all 3 replicas are ready", LastTransitionTime: ts},
				{Type: "Progressing", Status: "False", Reason: "Stable", Message: "nothing to roll out", LastTransitionTime: ts},
			}},
	}
	return w
}

// everything has a field of every shape and kind the serializer knows.
type everything struct {
	meta.TypeMeta `json:",inline"`
	Str           string               `protobuf:"bytes,1,opt,name=str"`
	Bytes         []byte               `protobuf:"bytes,2,opt,name=bytes"`
	Bool          bool                 `protobuf:"varint,3,opt,name=bool"`
	I32           int32                `protobuf:"varint,4,opt,name=i32"`
	I64           int64                `protobuf:"varint,5,opt,name=i64"`
	U32           uint32               `protobuf:"varint,6,opt,name=u32"`
	U64           uint64               `protobuf:"varint,7,opt,name=u64"`
	F32           float32              `protobuf:"fixed32,8,opt,name=f32"`
	F64           float64              `protobuf:"fixed64,9,opt,name=f64"`
	Time          meta.Time            `protobuf:"bytes,10,opt,name=time"`
	Raw           json.RawMessage      `protobuf:"bytes,11,opt,name=raw"`
	Msg           inner                `protobuf:"bytes,12,opt,name=msg"`
	PStr          *string              `protobuf:"bytes,13,opt,name=pStr"`
	PI64          *int64               `protobuf:"varint,14,opt,name=pI64"`
	PBool         *bool                `protobuf:"varint,15,opt,name=pBool"`
	PMsg          *inner               `protobuf:"bytes,16,opt,name=pMsg"`
	PTime         *meta.Time           `protobuf:"bytes,17,opt,name=pTime"`
	Strs          []string             `protobuf:"bytes,18,rep,name=strs"`
	I64s          []int64              `protobuf:"varint,19,rep,name=i64s"`
	Msgs          []inner              `protobuf:"bytes,20,rep,name=msgs"`
	StrMap        map[string]string    `protobuf:"bytes,21,rep,name=strMap"`
	BytesMap      map[string][]byte    `protobuf:"bytes,22,rep,name=bytesMap"`
	MsgMap        map[string]inner     `protobuf:"bytes,23,rep,name=msgMap"`
	IntMap        map[string]int32     `protobuf:"bytes,24,rep,name=intMap"`
	Self          *everything          `protobuf:"bytes,25,opt,name=self"`
	Named         meta.StatusReason    `protobuf:"bytes,26,opt,name=named"`
	BytesList     [][]byte             `protobuf:"bytes,27,rep,name=bytesList"`
	Times         []meta.Time          `protobuf:"bytes,28,rep,name=times"`
	F64s          []float64            `protobuf:"fixed64,29,rep,name=f64s"`
	TimeMap       map[string]meta.Time `protobuf:"bytes,30,rep,name=timeMap"`
	Micro         meta.MicroTime       `protobuf:"bytes,31,opt,name=micro"`
	PMicro        *meta.MicroTime      `protobuf:"bytes,32,opt,name=pMicro"`
	unexported    int
	Skipped       string `protobuf:"-"`
}

type inner struct {
	A string `protobuf:"bytes,1,opt,name=a"`
	B int32  `protobuf:"varint,2,opt,name=b"`
}
