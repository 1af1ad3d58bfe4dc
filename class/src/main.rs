//! `lab-class --db class.sqlite --port 8090 --origin http://127.0.0.1:8080`: the class server.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// The class server: locked predictions and measured results of a class, in one SQLite file
#[derive(Parser)]
#[command(name = "lab-class")]
struct Args {
    /// The database file (created, and its schema migrated, at start)
    #[arg(long, default_value = "class.sqlite", value_name = "FILE")]
    db: PathBuf,
    /// The address to listen on (127.0.0.1: this machine only; 0.0.0.0: the room's network)
    #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
    address: std::net::IpAddr,
    #[arg(long, default_value_t = 8090, value_name = "PORT")]
    port: u16,
    /// The site whose pages may use the server (`https://labs.example.edu`); without it, any
    #[arg(long, value_name = "URL")]
    origin: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let a = Args::parse();
    let store = match lab_class::Store::open(&a.db) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("lab-class: {e}");
            return ExitCode::FAILURE;
        }
    };
    let addr = SocketAddr::new(a.address, a.port);
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("lab-class: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "lab-class: http://{} (database {})",
        listener.local_addr().map_or(addr, |a| a),
        a.db.display()
    );
    let (router, stop) = lab_class::api::router_stoppable(store, a.origin);
    let app = router.into_make_service_with_connect_info::<SocketAddr>();
    let shutdown = async move {
        stop_signal().await;
        // On stderr, and never a panic: stdout may be a pipe nobody reads any more.
        let _ = writeln!(std::io::stderr(), "lab-class: stopping");
        // The live streams end; a request still in flight gets two seconds.
        let _ = stop.send(true);
        tokio::spawn(async {
            tokio::time::sleep(std::time::Duration::from_secs(2)).await;
            eprintln!("lab-class: requests still open after 2 s: stopped");
            std::process::exit(0);
        });
    };
    match axum::serve(listener, app).with_graceful_shutdown(shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab-class: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Ctrl-C (SIGINT) or, from a service manager, SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
