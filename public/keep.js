// Where a page keeps what it must remember (a course's predictions, a class's token): the
// browser's localStorage where it allows one, else this page's memory — in a frame of another
// site whose browser blocks third-party storage (where localStorage throws a SecurityError), or in
// a private mode that refuses writes. `persistent` says which, so a page can tell its reader.
(function () {
  let local = null;
  try {
    const probe = '__training-lab-probe';
    localStorage.setItem(probe, '1');
    localStorage.removeItem(probe);
    local = localStorage;
  } catch { local = null; }
  const memory = new Map();
  window.TrainingLabKeep = {
    persistent: local !== null,
    get(key) {
      if (memory.has(key)) return memory.get(key);
      try { return local ? local.getItem(key) : null; } catch { return null; }
    },
    set(key, value) {
      try {
        if (!local) throw new Error('no storage');
        local.setItem(key, value);
        memory.delete(key);
      } catch { memory.set(key, String(value)); }
    },
    remove(key) {
      memory.delete(key);
      try { if (local) local.removeItem(key); } catch { /* nothing kept there */ }
    },
  };
})();
