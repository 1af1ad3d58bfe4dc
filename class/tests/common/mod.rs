//! A SQLite file of its own for one test: none left from an earlier run, and gone (with its
//! write-ahead log) when the test ends, passed or not.

pub mod http;

pub struct TempDb(pub std::path::PathBuf);

impl TempDb {
    pub fn new(name: &str) -> Self {
        let db = TempDb(std::env::temp_dir().join(format!("lab-class-{name}-{}.sqlite", std::process::id())));
        db.remove();
        db
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        self.remove();
    }
}
