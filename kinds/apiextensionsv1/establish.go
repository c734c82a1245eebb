package apiextensionsv1

// EstablishedCondition is the Established condition kube-apiserver's
// establishing controller gives a definition whose names are accepted:
// True, but False while its conversion webhook's caBundle holds no
// certificate to trust.
func EstablishedCondition(crd *CustomResourceDefinition) CustomResourceDefinitionCondition {
	if c := crd.Spec.Conversion; c != nil && c.Webhook != nil && c.Webhook.ClientConfig != nil {
		if b := c.Webhook.ClientConfig.CABundle; len(b) > 0 && caBundleError(b) != nil {
			return CustomResourceDefinitionCondition{Type: Established, Status: ConditionFalse,
				Reason: "InvalidCABundle", Message: "The conversion webhook CABundle is invalid"}
		}
	}
	return CustomResourceDefinitionCondition{Type: Established, Status: ConditionTrue,
		Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}
}
