//! The code an instructor pastes to embed what the page shows, from the page's own address: an
//! iframe (what an LMS keeps: the lab in its compact `embed=1` mode, its settings and locks in its
//! URL) and the script form (`embed.js` sizes the frame and lets the page talk to the lab).

/// The two forms of embed code for one page.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbedCode {
    pub iframe: String,
    pub script: String,
}

/// `&`, `<`, `>` and `"` as HTML writes them in an attribute.
fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The embed code of lab `lab` (its id: `playground` is the site's root) shown at `href` (its
/// settings in the query; a fragment is dropped), titled `title`, `height` CSS pixels tall. The
/// site's base is the address before the lab's own part.
pub fn embed_code(href: &str, lab: &str, title: &str, height: u32) -> EmbedCode {
    let href = href.split('#').next().unwrap_or_default();
    let (page, query) = href.split_once('?').unwrap_or((href, ""));
    let keys: Vec<&str> = query
        .split('&')
        .filter(|k| !k.is_empty() && !k.starts_with("embed=") && !k.starts_with("origins="))
        .collect();
    // Where the path starts: after the scheme's `//` and the host.
    let host = page.find("://").map_or(0, |i| i + 3);
    let path = page[host..].find('/').map_or(page.len(), |i| host + i);
    // The folder of `address` (up to and with its last `/`).
    let folder = |address: &str| match address.rfind('/') {
        Some(i) if i >= path => address[..=i].to_string(),
        _ => format!("{address}/"),
    };
    let base = if lab == "playground" {
        folder(page)
    } else {
        let page = page.trim_end_matches('/');
        match page.strip_suffix(lab) {
            Some(dir) if dir.ends_with('/') && dir.len() > path => dir.to_string(),
            _ => folder(page),
        }
    };
    let mut src_keys = vec!["embed=1"];
    src_keys.extend(&keys);
    let src = format!("{}?{}", page, src_keys.join("&"));
    let iframe = format!(
        "<iframe src=\"{}\" width=\"100%\" height=\"{height}\" style=\"border:0; max-width:1000px\" title=\"{}\" allow=\"fullscreen\" loading=\"lazy\"></iframe>",
        attr(&src),
        attr(title)
    );
    let state = keys.join("&");
    let state_attr = if state.is_empty() {
        String::new()
    } else {
        format!(" data-state=\"{}\"", attr(&state))
    };
    let script = format!(
        "<script src=\"{}embed.js\" data-lab-base=\"{}\"></script>\n<div data-lab=\"{}\"{state_attr}></div>",
        attr(&base),
        attr(&base),
        attr(lab)
    );
    EmbedCode { iframe, script }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lab_under_a_sub_path_with_its_settings() {
        let c = embed_code(
            "https://u.edu/lab/optimizers/?surface=rosenbrock&surface_hide=true#x",
            "optimizers",
            "Training Lab: optimizers",
            640,
        );
        assert_eq!(
            c.iframe,
            "<iframe src=\"https://u.edu/lab/optimizers/?embed=1&amp;surface=rosenbrock&amp;surface_hide=true\" width=\"100%\" height=\"640\" style=\"border:0; max-width:1000px\" title=\"Training Lab: optimizers\" allow=\"fullscreen\" loading=\"lazy\"></iframe>"
        );
        assert_eq!(
            c.script,
            "<script src=\"https://u.edu/lab/embed.js\" data-lab-base=\"https://u.edu/lab/\"></script>\n<div data-lab=\"optimizers\" data-state=\"surface=rosenbrock&amp;surface_hide=true\"></div>"
        );
    }

    #[test]
    fn the_playground_at_the_root_and_an_embed_already_embedded() {
        let c = embed_code(
            "http://127.0.0.1:8080/?embed=1&dataset=xor&origins=http://a",
            "playground",
            "<Lab>",
            500,
        );
        assert!(
            c.iframe
                .starts_with("<iframe src=\"http://127.0.0.1:8080/?embed=1&amp;dataset=xor\""),
            "{}",
            c.iframe
        );
        assert!(c.iframe.contains("title=\"&lt;Lab&gt;\""), "{}", c.iframe);
        assert_eq!(
            c.script,
            "<script src=\"http://127.0.0.1:8080/embed.js\" data-lab-base=\"http://127.0.0.1:8080/\"></script>\n<div data-lab=\"playground\" data-state=\"dataset=xor\"></div>"
        );
        let bare = embed_code("http://h/cluster", "cluster", "t", 600);
        assert_eq!(bare.iframe.split('"').nth(1), Some("http://h/cluster?embed=1"));
        assert_eq!(bare.script, "<script src=\"http://h/embed.js\" data-lab-base=\"http://h/\"></script>\n<div data-lab=\"cluster\"></div>");
        let index = embed_code("http://h/lab/index.html?a=1", "playground", "t", 600);
        assert!(
            index
                .script
                .ends_with("<div data-lab=\"playground\" data-state=\"a=1\"></div>"),
            "{}",
            index.script
        );
        assert!(
            index.script.starts_with("<script src=\"http://h/lab/embed.js\""),
            "{}",
            index.script
        );
        let root = embed_code("https://u.edu/lab/", "playground", "t", 600);
        assert!(
            root.script
                .starts_with("<script src=\"https://u.edu/lab/embed.js\""),
            "{}",
            root.script
        );
    }
}
