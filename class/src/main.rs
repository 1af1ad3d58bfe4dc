//! `lab-class --db class.sqlite --port 8090 --origin https://labs.example.edu [--tls-cert FILE
//! --tls-key FILE]`: the class server, over HTTP or, given a certificate, HTTPS; on a SQLite file
//! or, with `--db postgres://…` (or `LAB_CLASS_DB`), on PostgreSQL for several instances.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

/// The class server: locked predictions and measured results of a class, in one SQLite file
#[derive(Parser)]
#[command(name = "lab-class")]
struct Args {
    /// The database: a SQLite file (created, and its schema migrated, at start), or a PostgreSQL
    /// URL, `postgres://USER:PASSWORD@HOST/DB`, for several server instances on one database
    /// (from the environment, it stays out of the process list)
    #[arg(
        long,
        env = "LAB_CLASS_DB",
        hide_env_values = true,
        default_value = "class.sqlite",
        value_name = "FILE|URL"
    )]
    db: String,
    /// The address to listen on (127.0.0.1: this machine only; 0.0.0.0: the room's network)
    #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
    address: std::net::IpAddr,
    #[arg(long, default_value_t = 8090, value_name = "PORT")]
    port: u16,
    /// The site whose pages may use the server (`https://labs.example.edu`); without it, any
    #[arg(long, value_name = "URL")]
    origin: Option<String>,
    /// Serve HTTPS with this certificate chain (PEM), a page on an HTTPS site can reach only an
    /// HTTPS server; with --tls-key
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// A reverse proxy in front of the server (nginx terminating TLS) whose X-Forwarded-For names
    /// the client; repeat for several. Any other peer's X-Forwarded-For is ignored
    #[arg(long, value_name = "IP")]
    trusted_proxy: Vec<std::net::IpAddr>,
    /// The certificate's private key (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Who may open classes: a file of `NAME DIGEST` lines (`lab-class instructor NAME` makes
    /// one); required unless --anyone-opens-classes
    #[arg(long, value_name = "FILE")]
    instructors: Option<PathBuf>,
    /// Any page that reaches the server may open a class (a class on one machine, not a campus)
    #[arg(long, conflicts_with = "instructors")]
    anyone_opens_classes: bool,
    /// The course's lesson files, which ids sent by pages are checked against (read at start)
    #[arg(long, default_value = "public/lessons", value_name = "DIR")]
    lessons: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(clap::Subcommand)]
enum Command {
    /// A lecture hall against a server on a temporary SQLite file (or the PostgreSQL database of
    /// --db): N students behind one address join, stream, lock, report and reconnect at once;
    /// prints what it held (fails if any lock or result was lost)
    Bench {
        #[arg(long, default_value_t = 500)]
        students: usize,
    },
    /// A new instructor: prints their secret (give it to them) and the line to add to the
    /// instructors' file (which holds only its digest)
    Instructor { name: String },
}

/// How long requests still open may take once the server is told to stop.
const GRACE: Duration = Duration::from_secs(2);

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Command::Instructor { name }) = &args.command {
        let secret = lab_class::api::random_hex().unwrap_or_default();
        return match lab_class::instructors::new_instructor(name, &secret) {
            Ok(line) => {
                println!("secret for {name} (give it to them; it is not stored): {secret}");
                println!("line for the instructors' file: {line}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("lab-class instructor: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(Command::Bench { students }) = args.command {
        let postgres = lab_class::store::postgres::is_url(&args.db).then_some(args.db.as_str());
        return match lab_class::bench::run(students, postgres).await {
            Ok(report) => {
                println!("{report}");
                if report.lost == 0 {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            }
            Err(e) => {
                eprintln!("lab-class bench: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lab-class: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(a: Args) -> Result<(), String> {
    let instructors = match (&a.instructors, a.anyone_opens_classes) {
        (Some(file), _) => Some(lab_class::instructors::Instructors::read(file)?),
        (None, true) => None,
        (None, false) => {
            return Err("who may open classes? give --instructors FILE (`lab-class instructor NAME` makes its lines), or --anyone-opens-classes for a class on one machine".into())
        }
    };
    let store = lab_class::Store::connect(&a.db)
        .await
        .map_err(|e| e.to_string())?;
    let database = store.describe();
    let addr = SocketAddr::new(a.address, a.port);
    let listener = std::net::TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr().map_or(addr, |a| a);
    let lessons = lab_class::catalogue::Catalogue::read(&a.lessons)
        .map_err(|e| format!("{e} (give the site's lessons with --lessons)"))?;
    let config = lab_class::Config {
        origin: a.origin,
        proxies: a.trusted_proxy,
        lessons: Some(lessons),
        instructors,
    };
    let (router, stop) = lab_class::api::router_stoppable(store, config);
    let app = router.into_make_service_with_connect_info::<SocketAddr>();
    let handle = axum_server::Handle::new();
    tokio::spawn({
        let handle = handle.clone();
        async move {
            stop_signal().await;
            // On stderr, and never a panic: stdout may be a pipe nobody reads any more.
            let _ = writeln!(std::io::stderr(), "lab-class: stopping");
            // The live streams end; a request still in flight gets the grace period.
            let _ = stop.send(true);
            handle.graceful_shutdown(Some(GRACE));
            tokio::time::sleep(GRACE + Duration::from_millis(200)).await;
            std::process::exit(0);
        }
    });
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let served = match (a.tls_cert, a.tls_key) {
        (Some(cert), Some(key)) => {
            // ring, the provider the workspace builds already.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let config = axum_server::tls_rustls::RustlsConfig::from_pem_file(&cert, &key)
                .await
                .map_err(|e| format!("the certificate {} or key {}: {e}", cert.display(), key.display()))?;
            announce("https", bound, &database);
            axum_server::from_tcp_rustls(listener, config)
                .handle(handle)
                .serve(app)
                .await
        }
        _ => {
            announce("http", bound, &database);
            axum_server::from_tcp(listener).handle(handle).serve(app).await
        }
    };
    served.map_err(|e| e.to_string())
}

/// The address the server answers at, the first line it prints (scripts and tests read it).
fn announce(scheme: &str, at: SocketAddr, database: &str) {
    println!("lab-class: {scheme}://{at} ({database})");
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
