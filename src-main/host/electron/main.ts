// Electron main process entry (issue 6).
