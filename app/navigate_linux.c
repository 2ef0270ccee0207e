//go:build desktop

// Native navigation of the Wails webview; see navigate_linux.go for why.

#include <stdint.h>
#include <stdlib.h>
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include "_cgo_export.h"

typedef struct {
	char *uri;
	uintptr_t handle;
} loadRequest;

// findWebView walks a widget tree depth first and stores the first WebKitWebView in *data.
static void findWebView(GtkWidget *widget, gpointer data) {
	WebKitWebView **found = data;
	if (*found != NULL) {
		return;
	}
	if (WEBKIT_IS_WEB_VIEW(widget)) {
		*found = WEBKIT_WEB_VIEW(widget);
		return;
	}
	if (GTK_IS_CONTAINER(widget)) {
		gtk_container_forall(GTK_CONTAINER(widget), findWebView, data);
	}
}

// loadOnMainThread runs on the GTK main loop, the only thread that may touch widgets.
static gboolean loadOnMainThread(gpointer data) {
	loadRequest *req = data;
	WebKitWebView *view = NULL;
	GList *tops = gtk_window_list_toplevels();
	for (GList *l = tops; l != NULL && view == NULL; l = l->next) {
		findWebView(GTK_WIDGET(l->data), &view);
	}
	g_list_free(tops);
	if (view != NULL) {
		webkit_web_view_load_uri(view, req->uri);
	}
	stewardLoaded(req->handle, view != NULL);
	free(req->uri);
	free(req);
	return G_SOURCE_REMOVE;
}

// stewardLoadURI takes ownership of uri. g_idle_add may be called from any thread.
void stewardLoadURI(char *uri, uintptr_t handle) {
	loadRequest *req = malloc(sizeof *req);
	req->uri = uri;
	req->handle = handle;
	g_idle_add(loadOnMainThread, req);
}
