//! The class server's integration tests as one binary (one link instead of two): the API through
//! the router, and the server as a process.

mod api;
mod common;
mod hall;
mod identity;
mod instances;
mod process;
mod proxy;
