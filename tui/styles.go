package tui

import "github.com/charmbracelet/lipgloss"

// Styles holds every style the TUI uses, built once. Nothing outside this
// file creates a style. Meaning never rests on colour alone: the current step
// has a ▶ marker, violations a ✗, the focused list a thick border, so the
// screen reads the same with NO_COLOR.
type Styles struct {
	Title     lipgloss.Style
	Header    lipgloss.Style
	Dim       lipgloss.Style
	Current   lipgloss.Style // the current row
	Selected  lipgloss.Style // the cursor in a list
	Bad       lipgloss.Style // a violation, a broken invariant
	Good      lipgloss.Style // an invariant that holds
	Warn      lipgloss.Style // faults, holds
	Narration lipgloss.Style
	Command   lipgloss.Style
	Box       lipgloss.Style // a panel with a border
	FocusBox  lipgloss.Style // the focused panel
	Rule      lipgloss.Style // separators
	Bar       lipgloss.Style // the filled part of a TTL bar
}

// NewStyles builds the styles.
func NewStyles() Styles {
	s := lipgloss.NewStyle
	border := lipgloss.RoundedBorder()
	return Styles{
		Title:     s().Bold(true).Foreground(lipgloss.Color("12")),
		Header:    s().Bold(true),
		Dim:       s().Foreground(lipgloss.Color("8")),
		Current:   s().Reverse(true),
		Selected:  s().Bold(true).Foreground(lipgloss.Color("12")),
		Bad:       s().Bold(true).Foreground(lipgloss.Color("9")),
		Good:      s().Foreground(lipgloss.Color("10")),
		Warn:      s().Foreground(lipgloss.Color("11")),
		Narration: s(),
		Command:   s().Foreground(lipgloss.Color("14")),
		Box:       s().Border(border).BorderForeground(lipgloss.Color("8")).Padding(0, 1),
		// A thick border: the focus shows without colour too.
		FocusBox: s().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color("12")).Padding(0, 1),
		Rule:     s().Foreground(lipgloss.Color("8")),
		Bar:      s().Foreground(lipgloss.Color("10")),
	}
}
