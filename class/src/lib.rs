//! The optional class server (`lab-class`): an instructor opens a class and gets a join code and
//! a private key; students send their locked predictions and what their runs measured; the
//! instructor sees the class's spread and exports it as CSV. Records live in one SQLite file
//! (`db`), every input is checked (`validate`), and each client is rate-limited and held to the
//! configured site's origin (`guard`). Without it, the course works as before, in the browser.

pub mod api;
pub mod db;
pub mod error;
pub mod events;
pub mod guard;
pub mod shared;
pub mod validate;

pub use api::router;
pub use db::Store;
pub use error::ClassError;
