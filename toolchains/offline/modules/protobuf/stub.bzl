# Offline stub: nothing to document.
