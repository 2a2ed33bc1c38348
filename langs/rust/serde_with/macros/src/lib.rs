//! `#[serde_as]` for runcell's serde_with subset, written on the bare
//! proc_macro API (no syn): it walks the item's tokens and rewrites every
//! `#[serde_as(as = "T")]` attribute into
//! `#[serde(serialize_with = "::serde_with::As::<T>::serialize")]`, leaving
//! everything else untouched, so the derive that follows sees plain serde.

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn serde_as(_args: TokenStream, item: TokenStream) -> TokenStream {
    rewrite(item)
}

fn rewrite(stream: TokenStream) -> TokenStream {
    stream
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let inner = if g.delimiter() == Delimiter::Bracket {
                    attribute(g.stream()).unwrap_or_else(|| rewrite(g.stream()))
                } else {
                    rewrite(g.stream())
                };
                let mut ng = Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            other => other,
        })
        .collect()
}

/// For the body of `#[...]`: Some(replacement) if it is `serde_as(as = "T")`.
fn attribute(body: TokenStream) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    match tokens.as_slice() {
        [TokenTree::Ident(name), TokenTree::Group(args)]
            if name.to_string() == "serde_as" && args.delimiter() == Delimiter::Parenthesis =>
        {
            let args: Vec<TokenTree> = args.stream().into_iter().collect();
            let adapter = match args.as_slice() {
                [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(lit)]
                    if key.to_string() == "as" && eq.as_char() == '=' =>
                {
                    let text = lit.to_string();
                    text.strip_prefix('"')?.strip_suffix('"')?.to_string()
                }
                _ => return None,
            };
            let path = format!("::serde_with::As::<{}>::serialize", adapter);
            let inner: TokenStream = vec![
                TokenTree::Ident(Ident::new("serialize_with", Span::call_site())),
                TokenTree::Punct(Punct::new('=', Spacing::Alone)),
                TokenTree::Literal(Literal::string(&path)),
            ]
            .into_iter()
            .collect();
            Some(
                vec![
                    TokenTree::Ident(Ident::new("serde", Span::call_site())),
                    TokenTree::Group(Group::new(Delimiter::Parenthesis, inner)),
                ]
                .into_iter()
                .collect(),
            )
        }
        _ => None,
    }
}
