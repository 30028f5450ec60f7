"""The Textual CSS of raw-tui, one sheet per screen or major widget. Installed as the
package raw_tui.styles (see setup.py); raw_tui/ui/styles.py finds the sheets."""
