//! The optional class server (`lab-class`): an instructor opens a class and gets a join code and
//! a private key; students send their locked predictions and what their runs measured; the
//! instructor sees the class's spread and exports it as CSV. Records live in one SQLite file,
//! or in PostgreSQL for several instances (`store`, keys and tokens kept only as digests: `secret`), every input is checked (`validate`,
//! strictly parsed: `extract`), and requests are budgeted per class and per student — not per
//! address, since a lecture hall shares one — and held to the configured site's origin (`guard`). Without it, the course works as before, in the browser.

pub mod api;
pub mod bench;
pub mod catalogue;
pub mod error;
pub mod events;
pub mod export;
pub mod extract;
pub mod guard;
pub mod instructors;
pub mod replay;
pub mod secret;
pub mod shared;
pub mod store;
pub mod validate;

pub use api::{router, Config};
pub use error::ClassError;
pub use store::Store;
