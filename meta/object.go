package meta

// Object is what every stored kind satisfies, usually by embedding
// [TypeMeta] and [ObjectMeta]:
//
//	type Widget struct {
//		meta.TypeMeta   `json:",inline"`
//		meta.ObjectMeta `json:"metadata,omitempty"`
//		Spec   WidgetSpec   `json:"spec,omitempty"`
//		Status WidgetStatus `json:"status,omitempty"`
//	}
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// List is a collection of objects of one kind as served by list calls. The
// items keep their own dynamic types.
type List struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items    []Object `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// GroupVersion names an API group at one version.
type GroupVersion struct {
	Group   string
	Version string
}

// String renders "group/version", or the version alone for the core group,
// as apiVersion does.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// GroupVersionKind names a kind in a group-version.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// GroupVersion returns the group-version part of gvk.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// GroupVersionResource names a resource in a group at one version, as
// admission requests and CEL's request.resource do.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// GroupResource returns the group and resource of gvr.
func (gvr GroupVersionResource) GroupResource() GroupResource {
	return GroupResource{Group: gvr.Group, Resource: gvr.Resource}
}

// GroupResource names a resource in a group without its version, as error
// messages do.
type GroupResource struct {
	Group    string
	Resource string
}

// String renders "resource.group", or the resource alone for the core
// group: the form kube-apiserver uses in its messages.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}
