package printer

import "k8s.io/cli-runtime/pkg/printers"

// HumanOrPrinter returns nil for the human form (no -o), else the -o printer (ToPrinter).
// Errors: ToPrinter's.
func (o *OutputFlags) HumanOrPrinter() (printers.ResourcePrinter, error) {
	if o.Human() {
		return nil, nil
	}
	return o.ToPrinter()
}
