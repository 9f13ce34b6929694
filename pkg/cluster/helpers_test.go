package cluster

import (
	"errors"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func metav1LabelSelectorRequirement(key, op string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: []string{"x"}}
}

func errorsNew(s string) error { return errors.New(s) }

func metav1TypeMeta() metav1.TypeMeta { return metav1.TypeMeta{} }
