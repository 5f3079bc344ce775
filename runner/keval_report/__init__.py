"""keval's reports of finished runs (`keval report`): one self-contained HTML page and a
Markdown summary, from the OUT folders of `keval run`. Never part of a judged job."""
